// Einsum as transposes, views and one MatMul (or a ReduceSum) (issue #30
// item 3): the reference gives the same outputs before and after the
// standard pipeline for the forms models use, and every node left has an
// rKernel; forms it does not take stay Einsum.
#include "core/passes/einsum_lowering.h"

#include <gtest/gtest.h>

#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

struct Case {
  const char* name;
  const char* equation;
  std::vector<ir::Shape> shapes;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.equation; }

class EinsumLoweringCase : public ::testing::TestWithParam<Case> {};

TEST_P(EinsumLoweringCase, KeepsTheOutputs) {
  const Case& c = GetParam();
  rt::GraphBuilder b;
  b.graph().opsetVersion = 13;
  std::vector<ir::ValueId> in;
  for (size_t k = 0; k < c.shapes.size(); ++k) in.push_back(b.input("x" + std::to_string(k), c.shapes[k]));
  b.output(b.op("Einsum", "einsum", in, rt::attrs({{"equation", std::string(c.equation)}})));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = rt::expectLoweredKeepingOutputs(b.graph(), 1e-5f);
  EXPECT_EQ(rt::opCount(g, "Einsum"), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, EinsumLoweringCase,
    ::testing::Values(Case{"matmul", "ij,jk->ik", {{3, 4}, {4, 5}}},
                      Case{"batched", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
                      Case{"attention_scores", "bhqd,bhkd->bhqk", {{2, 3, 4, 5}, {2, 3, 6, 5}}},
                      Case{"second_transposed", "ij,kj->ik", {{3, 4}, {5, 4}}},
                      Case{"outer", "i,j->ij", {{3}, {4}}},
                      Case{"rowwise_dot", "ij,ij->i", {{3, 4}, {3, 4}}},
                      Case{"output_reordered", "abc,cd->dba", {{2, 3, 4}, {4, 5}}},
                      Case{"implicit", "ij,jk", {{3, 4}, {4, 5}}},
                      Case{"transpose", "ij->ji", {{3, 4}}},
                      Case{"row_sum", "ij->i", {{3, 4}}},
                      Case{"sum_and_transpose", "abc->ca", {{2, 3, 4}}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(EinsumLowering, FormsItDoesNotTakeStayEinsum) {
  for (const char* equation : {"ii->i", "...ij,...jk->...ik"}) {
    rt::GraphBuilder b;
    b.graph().opsetVersion = 13;
    const bool diagonal = std::string(equation) == "ii->i";
    std::vector<ir::ValueId> in = {b.input("a", diagonal ? ir::Shape{3, 3} : ir::Shape{2, 3, 4})};
    if (!diagonal) in.push_back(b.input("b", {2, 4, 5}));
    b.output(b.op("Einsum", "einsum", in, rt::attrs({{"equation", std::string(equation)}})));
    ASSERT_TRUE(b.infer().empty()) << equation;
    PassContext ctx;
    EXPECT_FALSE(EinsumLowering().run(b.graph(), ctx).value()) << equation;
  }
}

}  // namespace
}  // namespace rammer::passes

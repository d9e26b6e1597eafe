// LpPool and GlobalLpPool as average pools of |x|^p (issue #30 item 3): the
// same outputs with padding, strides and several p, and every node left
// has an rKernel; a ceil_mode LpPool stays for the reference.
#include "core/passes/lp_pool_lowering.h"

#include <gtest/gtest.h>

#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

TEST(LpPoolLowering, AWindowedPoolKeepsItsOutputs) {
  for (int64_t p : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << "p " << p);
    rt::GraphBuilder b;
    const ir::ValueId x = b.input("x", {2, 3, 7, 6});
    b.output(b.op("LpPool", "lp", {x},
                  rt::attrs({{"p", p}, {"kernel_shape", std::vector<int64_t>{3, 2}},
                             {"strides", std::vector<int64_t>{2, 1}}, {"pads", std::vector<int64_t>{1, 0, 1, 1}}})));
    ASSERT_TRUE(b.infer().empty());
    const ir::Graph g = rt::expectLoweredKeepingOutputs(b.graph(), 1e-4f);
    EXPECT_EQ(rt::opCount(g, "LpPool"), 0u);
    EXPECT_EQ(rt::opCount(g, "AveragePool"), 1u);
  }
}

TEST(LpPoolLowering, TheGlobalPoolKeepsItsOutputs) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {2, 4, 5, 3});
  b.output(b.op("GlobalLpPool", "glp", {x}, rt::attrs({{"p", int64_t{2}}})));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = rt::expectLoweredKeepingOutputs(b.graph(), 1e-4f);
  EXPECT_EQ(rt::opCount(g, "GlobalLpPool"), 0u);
  EXPECT_EQ(rt::opCount(g, "GlobalAveragePool"), 1u);
}

TEST(LpPoolLowering, ACeilModePoolIsLeftToTheReference) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 1, 5, 5});
  b.output(b.op("LpPool", "lp", {x},
                rt::attrs({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
                           {"ceil_mode", int64_t{1}}})));
  ASSERT_TRUE(b.infer().empty());
  PassContext ctx;
  EXPECT_FALSE(LpPoolLowering().run(b.graph(), ctx).value());
}

}  // namespace
}  // namespace rammer::passes

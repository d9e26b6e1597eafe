// ConvTranspose as a Conv of the zero-spread input with flipped, channel-
// swapped weights (issue #30 item 3): the reference gives the same outputs
// before and after the standard pipeline over strides, dilations, groups,
// padding and output_padding in 1, 2 and 3 spatial dims, and every node
// left has an rKernel.
#include "core/passes/conv_transpose_lowering.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

struct Case {
  const char* name;
  ir::Shape x, w;
  int64_t group;
  std::vector<int64_t> strides, dilations, pads, outputPadding;
  bool bias;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ConvTransposeLoweringCase : public ::testing::TestWithParam<Case> {};

TEST_P(ConvTransposeLoweringCase, MatchesTheReferenceAsAConv) {
  const Case& c = GetParam();
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", c.x);
  ir::Tensor w(ir::DType::Float32, c.w);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = std::sin(0.7f * static_cast<float>(i)) + 0.1f;
  std::vector<ir::ValueId> in = {x, b.constant("w", std::move(w))};
  if (c.bias) {
    ir::Tensor bias(ir::DType::Float32, {c.w[1] * c.group});
    for (int64_t i = 0; i < bias.numel(); ++i) bias.data<float>()[i] = 0.25f * static_cast<float>(i) - 0.5f;
    in.push_back(b.constant("b", std::move(bias)));
  }
  b.output(b.op("ConvTranspose", "deconv", in,
                rt::attrs({{"group", c.group}, {"strides", c.strides}, {"dilations", c.dilations}, {"pads", c.pads},
                           {"output_padding", c.outputPadding}})));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = rt::expectLoweredKeepingOutputs(b.graph(), 1e-4f);
  EXPECT_EQ(rt::opCount(g, "ConvTranspose"), 0u);
  EXPECT_EQ(rt::opCount(g, "Conv"), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, ConvTransposeLoweringCase,
    ::testing::Values(Case{"stride1_2d", {1, 3, 5, 5}, {3, 4, 3, 3}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}, true},
                      Case{"stride2_2d", {2, 3, 4, 5}, {3, 2, 3, 3}, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
                      Case{"grouped_asym", {1, 4, 4, 6}, {4, 3, 2, 3}, 2, {3, 2}, {1, 1}, {0, 1, 1, 0}, {2, 0}, false},
                      Case{"dilated_1d", {1, 2, 7}, {2, 3, 3}, 1, {2}, {2}, {1, 2}, {1}, true},
                      Case{"stride2_3d", {1, 2, 3, 3, 2}, {2, 2, 2, 2, 2}, 1, {2, 1, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0},
                           {0, 0, 1}, false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ConvTransposeLowering, FormsItDoesNotTakeStayForTheReference) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 2, 4, 4});
  b.output(b.op("ConvTranspose", "same", {x, b.constant("w", ir::Tensor(ir::DType::Float32, {2, 2, 3, 3}))},
                rt::attrs({{"auto_pad", std::string("SAME_UPPER")}, {"strides", std::vector<int64_t>{2, 2}}})));
  ASSERT_TRUE(b.infer().empty());
  PassContext ctx;
  EXPECT_FALSE(ConvTransposeLowering().run(b.graph(), ctx).value());
}

}  // namespace
}  // namespace rammer::passes

// ReduceLogSumExp as max, exp, sum and log (issue #30 item 3): the same
// outputs over axes, keepdims and opsets, large inputs included (the
// maximum is subtracted, so nothing overflows), and every node left has an
// rKernel.
#include "core/passes/log_sum_exp_lowering.h"

#include <gtest/gtest.h>

#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

ir::Graph logSumExp(int64_t opset, std::vector<int64_t> axes, int64_t keepdims, float scale) {
  rt::GraphBuilder b;
  b.graph().opsetVersion = opset;
  ir::ValueId x = b.input("x", {3, 4, 5});
  // Scaled so that exp(x) alone would overflow float32 when scale is large.
  x = b.op("Mul", "scale", {x, b.constant("s", ir::Tensor::fromVector<float>({}, {scale}))});
  std::vector<ir::ValueId> in = {x};
  ir::Attributes a = rt::attrs({{"keepdims", keepdims}});
  if (opset >= 18) {
    if (!axes.empty()) in.push_back(b.constant("axes", ir::Tensor::fromVector<int64_t>({int64_t(axes.size())}, axes)));
  } else if (!axes.empty()) {
    a.set("axes", axes);
  }
  b.output(b.op("ReduceLogSumExp", "lse", in, a));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

TEST(LogSumExpLowering, KeepsTheOutputsOverAxesKeepdimsAndOpsets) {
  for (int64_t opset : {13, 18})
    for (const std::vector<int64_t>& axes : {std::vector<int64_t>{1}, {0, 2}, {-1}, {}})
      for (int64_t keepdims : {0, 1}) {
        SCOPED_TRACE(::testing::Message()
                     << "opset " << opset << ", " << axes.size() << " axes, keepdims " << keepdims);
        const ir::Graph g = rt::expectLoweredKeepingOutputs(logSumExp(opset, axes, keepdims, 1.0f));
        EXPECT_EQ(rt::opCount(g, "ReduceLogSumExp"), 0u);
      }
}

TEST(LogSumExpLowering, LargeInputsDoNotOverflow) {
  const ir::Graph g = rt::expectLoweredKeepingOutputs(logSumExp(13, {1}, 1, 200.0f));
  EXPECT_EQ(rt::opCount(g, "ReduceLogSumExp"), 0u);
}

}  // namespace
}  // namespace rammer::passes

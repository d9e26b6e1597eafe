// Hardmax as max, sign and an exclusive count of the maxima (issue #30 item
// 3): the same outputs as the reference over axes and opsets (coerced 2-D
// before opset 13), ties included (only the first maximum is 1), and every
// node left has an rKernel.
#include "core/passes/hardmax_lowering.h"

#include <gtest/gtest.h>

#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

ir::Graph hardmax(int64_t opset, int64_t axis, bool ties) {
  rt::GraphBuilder b;
  b.graph().opsetVersion = opset;
  ir::ValueId x = b.input("x", {3, 4, 5});
  // Floor(4x) has ties in every row: the first maximum must win.
  if (ties)
    x = b.op("Floor", "coarse",
             {b.op("Mul", "x4", {x, b.constant("four", ir::Tensor::fromVector<float>({}, {4.0f}))})});
  b.output(b.op("Hardmax", "hm", {x}, rt::attrs({{"axis", axis}})));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

TEST(HardmaxLowering, KeepsTheOutputsOverAxesOpsetsAndTies) {
  for (int64_t opset : {11, 13})
    for (int64_t axis : {0, 1, -1})
      for (bool ties : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "opset " << opset << ", axis " << axis << (ties ? ", ties" : ""));
        const ir::Graph g = rt::expectLoweredKeepingOutputs(hardmax(opset, axis, ties), 0.0f);
        EXPECT_EQ(rt::opCount(g, "Hardmax"), 0u);
      }
}

}  // namespace
}  // namespace rammer::passes

// LRN as an average pool over the channels of x^2 (issue #30 item 3): the
// same outputs for odd and even windows (ONNX's window is uneven for an
// even size) over 3-D and 4-D inputs, and every node left has an rKernel.
#include "core/passes/lrn_lowering.h"

#include <gtest/gtest.h>

#include "tests/core/passes/pass_test_util.h"
#include "tests/support/graph_builder.h"

namespace rammer::passes {
namespace {

namespace rt = rammer::testing;

TEST(LrnLowering, KeepsTheOutputsForOddAndEvenWindows) {
  for (const ir::Shape& shape : {ir::Shape{2, 7, 4, 3}, ir::Shape{1, 6, 5}})
    for (int64_t size : {1, 2, 3, 5}) {
      SCOPED_TRACE(::testing::Message() << "rank " << shape.size() << ", size " << size);
      rt::GraphBuilder b;
      const ir::ValueId x = b.input("x", shape);
      b.output(b.op("LRN", "lrn", {x},
                    rt::attrs({{"size", size}, {"alpha", 0.3f}, {"beta", 0.6f}, {"bias", 1.5f}})));
      ASSERT_TRUE(b.infer().empty());
      const ir::Graph g = rt::expectLoweredKeepingOutputs(b.graph(), 1e-5f);
      EXPECT_EQ(rt::opCount(g, "LRN"), 0u);
      EXPECT_EQ(rt::opCount(g, "AveragePool"), 1u);
    }
}

}  // namespace
}  // namespace rammer::passes

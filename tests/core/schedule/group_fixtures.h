#pragma once
// Hand-built graphs for GraphTurbo's grouping and its fused-group rKernel,
// in the form the passes leave (element-wise ops as FusedElementwise).
#include <map>
#include <string>

#include "core/ops/op_registry.h"
#include "tests/support/graph_builder.h"

namespace rammer::testing {

struct GroupFixture {
  ir::Graph graph;
  std::vector<ir::Tensor> inputs;
};

inline ir::ValueId fused(GraphBuilder& b, const std::string& name, const std::string& expr, std::vector<ir::ValueId> in) {
  ir::Node n;
  n.opType = "FusedElementwise";
  n.domain = ops::kRammerDomain;
  n.name = name;
  n.inputs = std::move(in);
  n.attrs.set("expr", expr);
  n.outputs.push_back(b.graph().addValue(name));
  const ir::ValueId out = n.outputs[0];
  b.graph().addNode(std::move(n));
  return out;
}

// x [1,4,rows,cols] (12 x 10 by default) -> conv (3x3, pad 1, bias) ->
// relu -> grouped conv (3x3, stride 2, pad 1, 2 groups) -> max pool (3x3,
// pad 1) -> average pool (2x2, end pads, pads not counted) -> add s
// [1,6,1,cols/2] (broadcast over rows) and the residual r -> 1x1 conv.
// Every kind of member and halo, one output.
inline GroupFixture convChain(int64_t rows = 12, int64_t cols = 10) {
  GraphBuilder b;
  const int64_t rows2 = (rows - 1) / 2 + 1, cols2 = (cols - 1) / 2 + 1;  // after the stride-2 conv
  const ir::ValueId x = b.input("x", {1, 4, rows, cols});
  const ir::ValueId r = b.input("r", {1, 6, rows2, cols2});
  uint32_t seed = 7;
  auto w = [&](const std::string& name, ir::Shape s) { return b.constant(name, randomTensor(std::move(s), seed++)); };
  using V = std::vector<int64_t>;
  const ir::ValueId c1 = b.op("Conv", "c1", {x, w("c1.w", {6, 4, 3, 3}), w("c1.b", {6})},
                              attrs({{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}}));
  const ir::ValueId e1 = fused(b, "e1", "(relu x0)", {c1});
  const ir::ValueId c2 = b.op("Conv", "c2", {e1, w("c2.w", {6, 3, 3, 3})},
                              attrs({{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}, {"strides", V{2, 2}}, {"group", int64_t{2}}}));
  const ir::ValueId p1 = b.op("MaxPool", "p1", {c2}, attrs({{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}}));
  const ir::ValueId a1 = b.op("AveragePool", "a1", {p1}, attrs({{"kernel_shape", V{2, 2}}, {"pads", V{0, 0, 1, 1}}}));
  const ir::ValueId e2 = fused(b, "e2", "(add (add x0 x1) x2)", {a1, w("s", {1, 6, 1, cols2}), r});
  b.output(b.op("Conv", "c3", {e2, w("c3.w", {4, 6, 1, 1})}, attrs({{"kernel_shape", V{1, 1}}})));
  EXPECT_TRUE(b.infer().empty());
  return {b.graph(), {randomTensor({1, 4, rows, cols}, 1), randomTensor({1, 6, rows2, cols2}, 2)}};
}

}  // namespace rammer::testing

// ops::computeOp: an op whose every output has zero elements is not
// computed (issue #30 item 5); any other op is, exactly as its compute
// function says.
#include "core/ops/op_compute.h"

#include <gtest/gtest.h>

#include "core/ops/op_registry.h"

namespace rammer::ops {
namespace {

// An op "Probe" whose output has the input's shape, counting its computes.
struct Probe {
  int computed = 0;
  OpDef def() {
    OpDef d;
    d.type = "Probe";
    d.infer = [](const OpContext& ctx) { return std::vector<ir::TensorType>{ctx.type(0), ctx.type(0)}; };
    d.compute = [this](const OpContext& ctx) {
      ++computed;
      return std::vector<ir::Tensor>{ctx.tensor(0), ctx.tensor(0)};
    };
    return d;
  }
};

ir::Node probeNode(bool secondOutput) {
  ir::Node n;
  n.opType = "Probe";
  n.name = "p";
  n.inputs = {0};
  n.outputs = {1};
  if (secondOutput) n.outputs.push_back(2);
  return n;
}

TEST(ComputeOp, AnOpWithNothingToComputeIsNotComputed) {
  Probe probe;
  const OpDef def = probe.def();
  const ir::Tensor empty(ir::DType::Float32, {0, int64_t{1} << 30});
  const ir::Node node = probeNode(false);
  const OpContext ctx(node, 13, {empty.type()}, {&empty});
  const std::vector<ir::Tensor> out = computeOp(def, ctx);
  EXPECT_EQ(probe.computed, 0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), empty.shape());
  EXPECT_EQ(out[0].dtype(), ir::DType::Float32);
  EXPECT_TRUE(out[1].empty()) << "an omitted output slot gets no tensor";
}

TEST(ComputeOp, AnyOtherOpIsComputed) {
  Probe probe;
  const OpDef def = probe.def();
  const ir::Tensor one = ir::Tensor::fromVector<float>({1}, {2.5f});
  const ir::Node node = probeNode(true);
  const std::vector<ir::Tensor> out = computeOp(def, OpContext(node, 13, {one.type()}, {&one}));
  EXPECT_EQ(probe.computed, 1);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data<float>()[0], 2.5f);

  // The Tile of the builtin registry, non-empty: computed as before.
  const OpDef* tile = OpRegistry::builtin().find("", "Tile");
  ASSERT_NE(tile, nullptr);
  ir::Node t;
  t.opType = "Tile";
  t.inputs = {0, 1};
  t.outputs = {2};
  const ir::Tensor x = ir::Tensor::fromVector<float>({2}, {1, 2});
  const ir::Tensor reps = ir::Tensor::fromVector<int64_t>({1}, {2});
  const std::vector<ir::Tensor> tiled = computeOp(*tile, OpContext(t, 13, {x.type(), reps.type()}, {&x, &reps}));
  ASSERT_EQ(tiled.size(), 1u);
  EXPECT_EQ(tiled[0].toDoubles(), (std::vector<double>{1, 2, 1, 2}));
}

}  // namespace
}  // namespace rammer::ops

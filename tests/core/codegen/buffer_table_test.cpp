// The buffer table of a plan whose Concat runs in place: each input's
// buffer lies in the Concat's output at its offset (views of it too), and
// with a copy rKernel pinned instead every value has its own storage; a
// Gather run in place is a view of its input at its offset.
#include "core/codegen/buffer_table.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/kernels/in_place.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/graph_builder.h"

namespace rammer::codegen {
namespace {

int32_t opNamed(const schedule::Plan& plan, const std::string& name) {
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (plan.ops[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

TEST(BufferTable, AConcatRunInPlaceHoldsItsInputsAtTheirOffsets) {
  const ir::Graph g = testing::optimizedSampleGraph("inception_block");
  const schedule::Plan plan = testing::planSample(g, "wavefront");
  const int32_t cat = opNamed(plan, "concat");
  ASSERT_GE(cat, 0);
  const schedule::PlannedOp& op = plan.ops[static_cast<size_t>(cat)];
  ASSERT_TRUE(op.kernel.inputsInPlace) << op.kernel.name << ": the wavefront policy's fastest";
  const auto offsets = kernels::concatInPlaceOffsets(g, op.node);
  ASSERT_TRUE(offsets.has_value());
  auto t = buildBufferTable(plan, g);
  ASSERT_TRUE(t.ok()) << t.errorText();
  const std::vector<int32_t>& args = t->opArgs[static_cast<size_t>(cat)];
  const size_t inputs = g.node(op.node).inputs.size();
  const int32_t out = args.at(inputs);
  EXPECT_EQ(t->buffers[static_cast<size_t>(out)].storage, out);
  int64_t end = 0;
  for (size_t k = 0; k < inputs; ++k) {
    const BufferInfo& in = t->buffers[static_cast<size_t>(args[k])];
    EXPECT_EQ(in.storage, out) << in.name;
    EXPECT_EQ(in.storageOffset, (*offsets)[k]) << in.name;
    end = std::max(end, in.storageOffset + in.numel);
  }
  EXPECT_EQ(end, t->buffers[static_cast<size_t>(out)].numel);
  // Every storage is a root, and nothing but the placed inputs has an offset.
  for (const BufferInfo& b : t->buffers) {
    EXPECT_EQ(t->buffers[static_cast<size_t>(b.storage)].storage, b.storage) << b.name;
    if (b.storage == static_cast<int32_t>(&b - t->buffers.data())) EXPECT_EQ(b.storageOffset, 0) << b.name;
  }
}

TEST(BufferTable, ACopyingConcatLeavesEveryInputItsOwnStorage) {
  const ir::Graph g = testing::optimizedSampleGraph("inception_block");
  const schedule::Plan inPlace = testing::planSample(g, "wavefront");
  const int32_t cat = opNamed(inPlace, "concat");
  ASSERT_GE(cat, 0);
  std::string copy;
  for (const schedule::KernelOption& o : inPlace.ops[static_cast<size_t>(cat)].options)
    if (o.kernel != "concat_in_place") copy = o.kernel;
  ASSERT_FALSE(copy.empty());
  schedule::Constraints pin;
  pin.kernelFor["concat"] = copy;
  const schedule::Plan plan = testing::planSample(g, "wavefront", "h100", pin);
  ASSERT_FALSE(plan.ops[static_cast<size_t>(cat)].kernel.inputsInPlace);
  auto t = buildBufferTable(plan, g);
  ASSERT_TRUE(t.ok()) << t.errorText();
  const std::vector<int32_t>& args = t->opArgs[static_cast<size_t>(cat)];
  for (size_t k = 0; k < g.node(plan.ops[static_cast<size_t>(cat)].node).inputs.size(); ++k) {
    const BufferInfo& in = t->buffers[static_cast<size_t>(args[k])];
    EXPECT_EQ(in.storage, args[k]) << in.name;
    EXPECT_EQ(in.storageOffset, 0) << in.name;
  }
}

TEST(BufferTable, AGatherRunInPlaceIsAViewOfItsInputAtItsOffset) {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {4, 1, 8});
  const ir::ValueId step = b.op("Gather", "step", {x, b.constant("t", ir::Tensor::fromVector<int64_t>({}, {2}))});
  b.output(b.op("MatMul", "use", {step, b.constant("w", testing::randomTensor({8, 4}, 1))}));
  ASSERT_TRUE(b.infer().empty());
  const schedule::Plan plan = testing::planSample(b.graph(), "wavefront");
  const int32_t gather = opNamed(plan, "step");
  ASSERT_GE(gather, 0);
  ASSERT_TRUE(plan.ops[static_cast<size_t>(gather)].kernel.outputsInPlace) << plan.ops[static_cast<size_t>(gather)].kernel.name;
  auto t = buildBufferTable(plan, b.graph());
  ASSERT_TRUE(t.ok()) << t.errorText();
  const std::vector<int32_t>& args = t->opArgs[static_cast<size_t>(gather)];
  const BufferInfo& out = t->buffers[static_cast<size_t>(args.at(2))];
  EXPECT_EQ(out.storage, args[0]);
  EXPECT_EQ(out.storageOffset, 16);
  EXPECT_EQ(out.numel, 8);
  EXPECT_EQ(t->buffers[static_cast<size_t>(args[0])].kind, BufferInfo::Kind::Input);
}

}  // namespace
}  // namespace rammer::codegen

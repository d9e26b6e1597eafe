// Reduce* rKernels: axes from attributes or inputs by opset, keepdims.
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

using Ints = std::vector<int64_t>;

void checkReduce(const std::string& op, int64_t opset, ir::Shape x, std::optional<Ints> axes, int64_t keepdims,
                 bool axesAsInput) {
  SCOPED_TRACE(op);
  GraphBuilder b;
  b.graph().opsetVersion = opset;
  std::vector<ir::ValueId> in = {b.input("x", std::move(x))};
  ir::Attributes a = attrs({{"keepdims", keepdims}});
  if (axes && axesAsInput) in.push_back(b.constant("axes", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(axes->size())}, *axes)));
  if (axes && !axesAsInput) a.set("axes", *axes);
  b.output(b.op(op, "red", in, a));
  ASSERT_TRUE(b.infer().empty());
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
}

}  // namespace

TEST(ReduceKernels, AttributeAxes) {
  checkReduce("ReduceMean", 13, {2, 3, 4, 5}, Ints{1}, 1, false);
  checkReduce("ReduceMax", 13, {2, 3, 4, 5}, Ints{-1, 0}, 0, false);
  checkReduce("ReduceMin", 11, {2, 3, 4}, std::nullopt, 1, false);  // every axis
  checkReduce("ReduceL2", 13, {3, 4, 5}, Ints{2}, 1, false);
  checkReduce("ReduceProd", 13, {3, 4, 2}, Ints{1}, 0, false);
  checkReduce("ReduceSumSquare", 13, {3, 4, 2}, Ints{0, 2}, 1, false);
}

TEST(ReduceKernels, AxesInputFromOpset13ForReduceSum) {
  checkReduce("ReduceSum", 13, {2, 3, 4}, Ints{0, 2}, 0, true);
  checkReduce("ReduceSum", 11, {2, 3, 4}, Ints{1}, 1, false);
  checkReduce("ReduceMean", 18, {2, 3, 4}, Ints{2}, 1, true);
}

TEST(ReduceKernels, ManyInputsPerOutputAddBlockCandidate) {
  GraphBuilder b;
  b.output(b.op("ReduceMean", "red", {b.input("x", {4, 300})}, attrs({{"axes", Ints{1}}})));
  ASSERT_TRUE(b.infer().empty());
  size_t n = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4, &n);
  EXPECT_EQ(n, 3u);  // thread, warp and block per output
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok());
  const kernels::RKernel& warp = k->candidates[n - 2];
  EXPECT_EQ(warp.name, "reduce_warp");
  EXPECT_EQ(warp.numRTasks, 1);  // 4 outputs, 8 per rTask
  EXPECT_EQ(warp.syncCount, 2 + 5);
  EXPECT_EQ(k->candidates.back().name, "reduce_block");
  EXPECT_EQ(k->candidates.back().numRTasks, 4);
  EXPECT_GT(k->candidates.back().syncCount, 0);
}

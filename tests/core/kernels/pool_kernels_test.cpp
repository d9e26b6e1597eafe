// Pooling rKernels against the reference pooling ops.
#include "core/kernels/cuda_library.h"
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

using Ints = std::vector<int64_t>;

void checkPool(const std::string& op, ir::Shape x, ir::Attributes a) {
  GraphBuilder b;
  b.output(b.op(op, "pool", {b.input("x", std::move(x))}, std::move(a)));
  ASSERT_TRUE(b.infer().empty());
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
}

}  // namespace

TEST(PoolKernels, MaxPoolPadsStridesCeil) {
  checkPool("MaxPool", {2, 3, 9, 9},
            attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}));
  checkPool("MaxPool", {1, 2, 8, 7}, attrs({{"kernel_shape", Ints{3, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}));
  checkPool("MaxPool", {1, 2, 10, 10}, attrs({{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}}));
}

TEST(PoolKernels, AveragePoolCountIncludePad) {
  for (int64_t include : {0, 1})
    checkPool("AveragePool", {2, 3, 7, 7},
              attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 0, 1, 2}},
                     {"count_include_pad", include}}));
  checkPool("AveragePool", {1, 1, 6, 6},
            attrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}},
                   {"pads", Ints{1, 1, 1, 1}}, {"count_include_pad", int64_t{1}}}));
  checkPool("AveragePool", {1, 1, 8, 8}, attrs({{"kernel_shape", Ints{3, 3}}, {"auto_pad", std::string("SAME_UPPER")}}));
}

TEST(PoolKernels, OneAndThreeDimensionalWindows) {
  checkPool("MaxPool", {2, 3, 11}, attrs({{"kernel_shape", Ints{3}}, {"strides", Ints{2}}}));
  checkPool("AveragePool", {1, 2, 4, 5, 6}, attrs({{"kernel_shape", Ints{2, 2, 3}}}));
}

TEST(PoolKernels, GlobalPools) {
  checkPool("GlobalAveragePool", {2, 5, 7, 7}, {});
  checkPool("GlobalMaxPool", {2, 5, 7, 7}, {});
  checkPool("GlobalAveragePool", {1, 300, 3, 3}, {});  // several planes per thread-rTask
}

TEST(PoolKernels, GlobalBlockVariantUsesBarriers) {
  GraphBuilder b;
  b.output(b.op("GlobalAveragePool", "gap", {b.input("x", {1, 8, 14, 14})}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok()) << k.errorText();
  ASSERT_EQ(k->candidates.size(), 3u);  // thread, block and warp per plane
  const kernels::RKernel& block = k->candidates[1];
  EXPECT_EQ(block.numRTasks, 8);
  EXPECT_EQ(block.threads(), 256);  // 196 elements per plane -> next power of two
  EXPECT_EQ(block.sharedBytes, 256 * 4);
  EXPECT_EQ(block.syncCount, 2 + 8);  // store + 8 tree levels + release
  // The body is global_pool.cuh's (issue #44 item 1), instantiated for 256
  // threads over planes of 196; its tree is block_reduce.cuh's.
  EXPECT_NE(block.cudaSource.find("rammer_global_pool_block<int, 256, 196LL, false>"), std::string::npos)
      << block.cudaSource;
  EXPECT_EQ(block.cudaSource.find("for ("), std::string::npos) << "an instantiation, not a loop:\n" << block.cudaSource;
  EXPECT_EQ(block.cudaLibraries, (std::vector<std::string>{kernels::kBlockReduce, kernels::kGlobalPool}));
  const std::string_view tree = kernels::cudaLibrary(kernels::kBlockReduce);
  size_t syncs = 0;
  for (size_t p = tree.find("__syncthreads();"); p != std::string::npos; p = tree.find("__syncthreads();", p + 1))
    ++syncs;
  EXPECT_EQ(syncs, 3u);  // the tree level's barrier is inside a loop
}

// A warp per plane, 8 planes per rTask (issue #27 item 5): the lanes read a
// plane's consecutive elements; planes shorter than a warp do without it.
TEST(PoolKernels, GlobalWarpVariantTakesEightPlanesPerRTask) {
  checkPool("GlobalAveragePool", {1, 21, 8, 8}, {});
  checkPool("GlobalMaxPool", {3, 7, 33}, {});
  GraphBuilder b;
  b.output(b.op("GlobalAveragePool", "gap", {b.input("x", {1, 21, 8, 8})}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok()) << k.errorText();
  ASSERT_EQ(k->candidates.size(), 3u);
  const kernels::RKernel& warp = k->candidates[2];
  EXPECT_EQ(warp.name, "global_avgpool_warp");
  EXPECT_EQ(warp.numRTasks, 3);  // 21 planes / 8
  EXPECT_EQ(warp.threads(), 256);
  EXPECT_EQ(warp.sharedBytes, 256 * 4);
  EXPECT_EQ(warp.syncCount, 2 + 5);  // store + 5 levels of a 32-lane tree + release
  EXPECT_NE(warp.cudaSource.find("rammer_global_pool_warp<int, 256, 8, 32, 21LL, 64LL, false>"), std::string::npos)
      << warp.cudaSource;
  const std::string_view body = kernels::cudaLibrary(kernels::kGlobalPool);
  EXPECT_NE(body.find("j += LANES"), std::string::npos);  // the lanes stride through one plane
  GraphBuilder small;
  small.output(small.op("GlobalAveragePool", "gap", {small.input("x", {1, 300, 3, 3})}));
  ASSERT_TRUE(small.infer().empty());
  auto few = kernels::kernelsFor(small.graph(), lastNode(small.graph()));
  ASSERT_TRUE(few.ok());
  EXPECT_EQ(few->candidates.size(), 2u);
}

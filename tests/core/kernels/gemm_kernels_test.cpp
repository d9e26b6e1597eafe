#include "core/kernels/gemm_kernels.h"

#include <unistd.h>

#include <algorithm>
#include <optional>

#include "core/kernels/conv_kernels.h"
#include "core/kernels/cuda_library.h"
#include "core/ops/op_context.h"
#include "tests/core/kernels/gemm_conv_test_util.h"

namespace rammer::kernels {
namespace {

using testutil::OneNode;
using testing::attrs;

const RKernel& byName(const std::vector<RKernel>& ks, const std::string& name) {
  for (const RKernel& k : ks)
    if (k.name == name) return k;
  throw std::runtime_error("no candidate " + name);
}

void checkMatMul(const ir::Shape& a, const ir::Shape& b, size_t minCandidates = 3) {
  SCOPED_TRACE("MatMul " + ir::shapeToString(a) + " x " + ir::shapeToString(b));
  std::mt19937 rng(7);
  OneNode t;
  t.add("A", a, rng);
  t.add("B", b, rng);
  t.finish("MatMul");
  testutil::checkAllCandidates(t, gemmKernels, minCandidates);
}

TEST(GemmKernels, MatMulEdgeTilesAndOddK) {
  checkMatMul({37, 53}, {53, 29});
  checkMatMul({1, 5}, {5, 70});
  checkMatMul({65, 16}, {16, 1});
}

TEST(GemmKernels, MatMulSplitKCandidateMatches) {
  // K = 200 allows three 64-deep chunks; the split is offered and checked
  // from two threads accumulating into the same outputs.
  checkMatMul({45, 200}, {200, 70}, 4);
  checkMatMul({3, 300}, {300, 5}, 4);
}

TEST(GemmKernels, MatMulBatchedAndBroadcast) {
  checkMatMul({3, 20, 33}, {3, 33, 17});
  checkMatMul({2, 1, 5, 40}, {3, 40, 9});
  checkMatMul({1, 8, 16}, {3, 16, 5});
  checkMatMul({4, 6, 130}, {130, 10});  // shared B: folded into one tall GEMM
  checkMatMul({2, 3, 7, 18}, {18, 11});
}

TEST(GemmKernels, MatMulVectors) {
  checkMatMul({33}, {33, 12});
  checkMatMul({2, 7, 33}, {33});
  checkMatMul({20}, {20});
  checkMatMul({33}, {4, 33, 6});
}

void checkGemm(const ir::Shape& a, const ir::Shape& b, const std::optional<ir::Shape>& c, int64_t tA, int64_t tB,
               float alpha, float beta) {
  SCOPED_TRACE("Gemm A " + ir::shapeToString(a) + " B " + ir::shapeToString(b) +
               (c ? " C " + ir::shapeToString(*c) : std::string(" no C")) + " transA " + std::to_string(tA) +
               " transB " + std::to_string(tB));
  std::mt19937 rng(11);
  OneNode t;
  t.add("A", a, rng);
  t.add("B", b, rng);
  if (c) t.add("C", *c, rng);
  t.finish("Gemm", attrs({{"transA", tA}, {"transB", tB}, {"alpha", alpha}, {"beta", beta}}));
  testutil::checkAllCandidates(t, gemmKernels, 3);
}

TEST(GemmKernels, GemmTransposesAlphaBetaAndBroadcastC) {
  checkGemm({19, 40}, {40, 23}, ir::Shape{23}, 0, 0, 1.0f, 1.0f);
  checkGemm({40, 19}, {40, 23}, ir::Shape{19, 1}, 1, 0, 0.5f, 2.0f);
  checkGemm({19, 40}, {23, 40}, ir::Shape{19, 23}, 0, 1, -1.5f, 0.25f);
  checkGemm({150, 19}, {23, 150}, ir::Shape{}, 1, 1, 2.0f, -1.0f);
  checkGemm({19, 140}, {140, 23}, ir::Shape{1, 23}, 0, 0, 1.0f, 1.0f);
  checkGemm({7, 30}, {30, 9}, std::nullopt, 0, 0, 3.0f, 1.0f);
  checkGemm({7, 30}, {30, 9}, ir::Shape{7, 9}, 0, 0, 1.0f, 0.0f);  // beta 0: C ignored
  checkGemm({30, 1}, {9, 30}, ir::Shape{9}, 1, 1, 1.0f, 1.0f);     // M = 1 through a transpose
}

// 512 x 512 x 512 worked by hand.
TEST(GemmKernels, HandWorkedFiguresAndTheTileTradeOff) {
  std::mt19937 rng(3);
  OneNode t;
  t.add("A", {512, 512}, rng);
  t.add("B", {512, 512}, rng);
  t.finish("MatMul");
  const std::vector<RKernel> ks = gemmKernels(t.graph(), t.node);
  ASSERT_EQ(ks.size(), 5u);
  // 8 x 8 per thread at 128 registers: 2 vEUs of 256 threads per SM.
  const RKernel& huge = byName(ks, "gemm_128x128");
  EXPECT_EQ(huge.numRTasks, 16);
  EXPECT_EQ(huge.threads(), 256);
  EXPECT_EQ(huge.regsEstimate, 128);
  EXPECT_EQ(huge.params.at("register_budget"), 128);
  // Three buffers of A [8][128 + 4] and B [8][128 + 4]: row-major B is
  // copied by cp.async two K steps ahead.
  EXPECT_EQ(huge.sharedBytes, 4 * 3 * 8 * (132 + 132));
  EXPECT_NE(huge.cudaSource.find("RAMMER_K_MAJOR, RAMMER_MN_ASYNC"), std::string::npos);
  // The rTask template after what it builds on.
  EXPECT_EQ(huge.cudaLibraries, (std::vector<std::string>{"gemm_mainloop.cuh", "index_math.cuh", "splitk.cuh",
                                                          "gemm_store.cuh", "gemm_rtask.cuh"}));

  const RKernel& big = byName(ks, "gemm_64x64");
  EXPECT_EQ(big.numRTasks, 64);  // 8 x 8 tiles
  EXPECT_EQ(big.threads(), 256);
  EXPECT_EQ(big.regsEstimate, 64);
  EXPECT_EQ(big.sharedBytes, 4 * 3 * 8 * (68 + 68));
  EXPECT_EQ(big.syncCount, 512 / 8 + 1);  // one barrier per K step and one before the first
  EXPECT_DOUBLE_EQ(big.flops, 2.0 * 512 * 512 * 512);
  // A read once per tile column (8), B once per tile row (8), Y written once.
  EXPECT_DOUBLE_EQ(big.bytes, 4.0 * (8 + 8 + 1) * 512 * 512);
  EXPECT_FALSE(big.zeroOutputsFirst);
  EXPECT_EQ(big.cudaFunction, "rk_n0_gemm_64x64");

  const RKernel& small = byName(ks, "gemm_32x32");
  EXPECT_EQ(small.numRTasks, 256);
  EXPECT_EQ(small.threads(), 64);
  EXPECT_EQ(small.sharedBytes, 4 * 3 * 8 * (36 + 36));
  EXPECT_DOUBLE_EQ(small.bytes, 4.0 * (16 + 16 + 1) * 512 * 512);
  // The trade-off the policies choose on: fewer, more efficient rTasks vs more parallelism.
  EXPECT_LT(big.numRTasks, small.numRTasks);
  EXPECT_LT(big.bytes, small.bytes);
  EXPECT_LT(huge.bytes, big.bytes);

  const RKernel& wide = byName(ks, "gemm_16x64");
  EXPECT_EQ(wide.numRTasks, 32 * 8);
  EXPECT_EQ(wide.block, (Dim3{16, 4, 1}));

  // 256 tiles of 32x32 -> 2 chunks of 256.
  const RKernel& split = byName(ks, "gemm_32x32_splitk2");
  EXPECT_EQ(split.family, "gemm_splitk");
  EXPECT_EQ(split.numRTasks, 512);
  EXPECT_EQ(split.syncCount, 256 / 8 + 1);
  EXPECT_TRUE(split.zeroOutputsFirst);
  EXPECT_EQ(split.params.at("split_k"), 2);
}

TEST(GemmKernels, SyncCountRoundsKUp) {
  std::mt19937 rng(3);
  OneNode t;
  t.add("A", {10, 20}, rng);
  t.add("B", {20, 10}, rng);
  t.finish("MatMul");
  const std::vector<RKernel> ks = gemmKernels(t.graph(), t.node);
  ASSERT_EQ(ks.size(), 4u);  // K = 20: too shallow to split; 10 x 10: no 128 x 128, the GEMV
  for (const RKernel& k : ks)
    if (k.family == "gemm") EXPECT_EQ(k.syncCount, 3 + 1) << k.name;  // 20 -> 24: 3 K steps
  EXPECT_EQ(byName(ks, "gemv_nmajor").syncCount, 0);
  EXPECT_EQ(byName(ks, "gemm_64x64").numRTasks, 1);
}

TEST(GemmKernels, RejectsWhatItCannotTile) {
  testing::GraphBuilder b;
  const ir::ValueId a = b.input("A", {4, 8}, ir::DType::Int64);
  const ir::ValueId w = b.input("B", {8, 3}, ir::DType::Int64);
  b.output(b.op("MatMul", "mm", {a, w}));
  ASSERT_TRUE(b.infer().empty());
  try {
    gemmKernels(b.graph(), 0);
    FAIL() << "int64 MatMul accepted";
  } catch (const ops::OpError& e) {
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
  }

  testing::GraphBuilder u;
  const ir::ValueId x = u.input("A", {ir::kUnknownDim, 8});
  const ir::ValueId y = u.input("B", {8, 3});
  u.output(u.op("MatMul", "mm", {x, y}));
  ASSERT_TRUE(u.infer().empty());
  EXPECT_THROW(gemmKernels(u.graph(), 0), ops::OpError);
}

// Every candidate of a few GEMM and Conv nodes through one nvcc run.
TEST(GemmKernels, CudaSourcesCompileWithNvcc) {
  if (!std::filesystem::exists(testutil::kNvcc)) GTEST_SKIP() << "nvcc not found at " << testutil::kNvcc;
  std::mt19937 rng(5);
  std::string cu;
  std::vector<std::string> libraries;  // the .cuh bodies the sources instantiate, each after what it builds on
  size_t count = 0;
  auto addAll = [&](OneNode& t, const std::vector<RKernel>& ks, const std::string& tag) {
    const int inputs = static_cast<int>(t.inputs.size());
    for (RKernel k : ks) {
      // Nodes of separate graphs share ids: make the names unique in this file.
      const std::string fresh = tag + "_" + k.cudaFunction;
      // Every occurrence: the function and what is named after it (a conv's geometry).
      ASSERT_NE(k.cudaSource.find(k.cudaFunction), std::string::npos);
      for (size_t at = 0; (at = k.cudaSource.find(k.cudaFunction, at)) != std::string::npos; at += fresh.size())
        k.cudaSource.replace(at, k.cudaFunction.size(), fresh);
      k.cudaFunction = fresh;
      EXPECT_EQ(k.cudaSource.find("blockIdx"), std::string::npos) << k.name;
      cu += k.cudaSource + testutil::cudaWrapper(k, inputs);
      for (const std::string& lib : k.cudaLibraries)
        if (std::find(libraries.begin(), libraries.end(), lib) == libraries.end()) libraries.push_back(lib);
      ++count;
    }
  };
  {
    OneNode t;
    t.add("A", {2, 1, 45, 200}, rng);
    t.add("B", {3, 200, 70}, rng);
    t.finish("MatMul");
    addAll(t, gemmKernels(t.graph(), t.node), "mm");
  }
  {
    OneNode t;
    t.add("A", {150, 19}, rng);
    t.add("B", {23, 150}, rng);
    t.add("C", {19, 1}, rng);
    t.finish("Gemm", attrs({{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5f}, {"beta", 2.0f}}));
    addAll(t, gemmKernels(t.graph(), t.node), "gemm");
  }
  {
    OneNode t;
    t.add("X", {2, 8, 11, 13}, rng);
    t.add("W", {6, 4, 3, 3}, rng);
    t.add("B", {6}, rng);
    t.finish("Conv", attrs({{"group", int64_t{2}}, {"pads", std::vector<int64_t>{1, 0, 1, 2}},
                            {"strides", std::vector<int64_t>{2, 1}}, {"dilations", std::vector<int64_t>{1, 2}}}));
    addAll(t, convKernels(t.graph(), t.node), "conv2d");
  }
  {
    OneNode t;
    t.add("X", {1, 6, 9, 9}, rng);
    t.add("W", {6, 1, 3, 3}, rng);
    t.add("B", {6}, rng);
    t.finish("Conv", attrs({{"group", int64_t{6}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
    addAll(t, convKernels(t.graph(), t.node), "dw");
  }
  {
    OneNode t;
    t.add("X", {2, 3, 5, 6, 7}, rng);
    t.add("W", {4, 3, 2, 3, 2}, rng);
    t.finish("Conv");
    addAll(t, convKernels(t.graph(), t.node), "conv3d");
  }
  ASSERT_GE(count, 14u);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rammer_gemm_nvcc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string head = "#define RAMMER_TARGET_CUDA 1\n";
  for (const std::string& lib : libraries) head += std::string(cudaLibrary(lib));
  { std::ofstream(dir / "kernels.cu") << head << cu; }
  const std::string cmd = std::string(testutil::kNvcc) + " -arch=sm_90 -c " + (dir / "kernels.cu").string() + " -o " +
                          (dir / "kernels.o").string() + " > " + (dir / "log.txt").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream logFile(dir / "log.txt");
  const std::string log((std::istreambuf_iterator<char>(logFile)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << log;
  EXPECT_EQ(log.find("warning"), std::string::npos) << log;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rammer::kernels

#include "core/kernels/conv_kernels.h"

#include "core/ops/op_context.h"
#include "tests/core/kernels/gemm_conv_test_util.h"

namespace rammer::kernels {
namespace {

using testutil::OneNode;
using testing::attrs;

std::vector<std::string> names(const std::vector<RKernel>& ks) {
  std::vector<std::string> n;
  for (const RKernel& k : ks) n.push_back(k.name);
  return n;
}

void checkConv(const ir::Shape& x, const ir::Shape& w, bool bias, ir::Attributes a,
               const std::vector<std::string>& expectNames) {
  SCOPED_TRACE("Conv X " + ir::shapeToString(x) + " W " + ir::shapeToString(w));
  std::mt19937 rng(13);
  OneNode t;
  t.add("X", x, rng);
  t.add("W", w, rng);
  if (bias) t.add("B", {w[0]}, rng);
  t.finish("Conv", std::move(a));
  EXPECT_EQ(names(convKernels(t.graph(), t.node)), expectNames);
  testutil::checkAllCandidates(t, convKernels, 2);
}

const std::vector<std::string> kIgemm = {"conv_igemm_128x64", "conv_igemm_64x64", "conv_igemm_32x32"};
const std::vector<std::string> kAll = {"conv_depthwise", "conv_igemm_128x64", "conv_igemm_64x64", "conv_igemm_32x32"};

TEST(ConvKernels, PlainAndPointwise) {
  checkConv({2, 3, 9, 10}, {5, 3, 3, 3}, true, {}, kIgemm);
  checkConv({3, 20, 7, 7}, {70, 20, 1, 1}, false, {}, kIgemm);  // 1x1: tiles straddle images
  checkConv({1, 40, 9, 9}, {33, 40, 1, 1}, true, {}, kIgemm);
}

// A 1x1 window over one image is a plain GEMM: the input's channels are B
// as they lie (rows of 81 columns), copied by cp.async in three stages; over
// two images the columns straddle them and go through the im2col loader.
TEST(ConvKernels, PointwiseOverOneImageReadsTheInputAsAPlainGemm) {
  for (const int64_t images : {1, 2}) {
    SCOPED_TRACE(std::to_string(images) + " image(s)");
    std::mt19937 rng(5);
    OneNode t;
    t.add("X", {images, 40, 9, 9}, rng);
    t.add("W", {33, 40, 1, 1}, rng);
    t.finish("Conv", {});
    const RKernel k = convKernels(t.graph(), t.node).at(1);
    ASSERT_EQ(k.name, "conv_igemm_64x64");
    const bool plain = images == 1;
    EXPECT_EQ(k.cudaSource.find("RammerIm2col<") == std::string::npos, plain);
    EXPECT_EQ(k.cudaSource.find("RAMMER_K_MAJOR, RAMMER_MN_ASYNC") != std::string::npos, plain);
    EXPECT_EQ(k.sharedBytes, 4 * (plain ? 3 : 2) * 8 * (68 + 68));
  }
}

TEST(ConvKernels, DeepKOverFewTilesAddsASplitKVariant) {
  // K = 64 x 9 = 576 over one 64 x 64 tile: four chunks of 144, added
  // atomically (the bias by the first) from shuffled rTasks.
  std::vector<std::string> names = kIgemm;
  names.push_back("conv_igemm_64x64_splitk4");
  checkConv({1, 64, 6, 6}, {32, 64, 3, 3}, true, attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}), names);
}

TEST(ConvKernels, PadsStridesDilationsAutoPad) {
  checkConv({2, 4, 11, 13}, {6, 4, 3, 3}, true,
            attrs({{"pads", std::vector<int64_t>{1, 0, 2, 1}}, {"strides", std::vector<int64_t>{2, 1}},
                   {"dilations", std::vector<int64_t>{1, 2}}}),
            kIgemm);
  checkConv({1, 3, 10, 9}, {4, 3, 3, 2}, false,
            attrs({{"auto_pad", std::string("SAME_UPPER")}, {"strides", std::vector<int64_t>{2, 2}}}), kIgemm);
  checkConv({1, 2, 6, 6}, {3, 2, 5, 5}, true, attrs({{"pads", std::vector<int64_t>{2, 2, 2, 2}}}), kIgemm);
}

TEST(ConvKernels, Groups) {
  checkConv({2, 8, 7, 9}, {6, 4, 3, 3}, true,
            attrs({{"group", int64_t{2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}), kIgemm);
  checkConv({1, 64, 8, 8}, {64, 2, 3, 3}, true,
            attrs({{"group", int64_t{32}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}), kIgemm);
}

TEST(ConvKernels, DepthwiseDirectKernel) {
  checkConv({2, 6, 9, 9}, {6, 1, 3, 3}, true,
            attrs({{"group", int64_t{6}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}), kAll);
  // A plane of 400 outputs: two chunks per plane, the last one partial.
  checkConv({1, 4, 20, 20}, {4, 1, 5, 5}, false,
            attrs({{"group", int64_t{4}}, {"strides", std::vector<int64_t>{1, 1}},
                   {"pads", std::vector<int64_t>{2, 1, 2, 3}}, {"dilations", std::vector<int64_t>{1, 2}}}),
            kAll);
  // One input channel and group 1 (a first layer): the direct kernel with multiplier 8.
  checkConv({2, 1, 12, 12}, {8, 1, 5, 5}, true, {}, kAll);
  // Channel multiplier 3.
  checkConv({1, 4, 8, 7}, {12, 1, 3, 3}, true,
            attrs({{"group", int64_t{4}}, {"strides", std::vector<int64_t>{2, 2}}}), kAll);
}

TEST(ConvKernels, OneAndThreeDimensional) {
  checkConv({2, 5, 40}, {7, 5, 4}, true,
            attrs({{"pads", std::vector<int64_t>{1, 2}}, {"strides", std::vector<int64_t>{3}},
                   {"dilations", std::vector<int64_t>{2}}}),
            kIgemm);
  checkConv({1, 4, 50}, {4, 1, 3}, true, attrs({{"group", int64_t{4}}, {"pads", std::vector<int64_t>{1, 1}}}), kAll);
  checkConv({2, 3, 5, 6, 7}, {4, 3, 2, 3, 2}, true,
            attrs({{"pads", std::vector<int64_t>{1, 0, 1, 0, 1, 1}}, {"strides", std::vector<int64_t>{1, 2, 1}}}),
            kIgemm);
}

// 1 x 16 x 8 x 8 input, 32 filters 3x3, pad 1: a 32 x 64 GEMM of depth 144.
TEST(ConvKernels, HandWorkedFigures) {
  std::mt19937 rng(3);
  OneNode t;
  t.add("X", {1, 16, 8, 8}, rng);
  t.add("W", {32, 16, 3, 3}, rng);
  t.add("B", {32}, rng);
  t.finish("Conv", attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const std::vector<RKernel> ks = convKernels(t.graph(), t.node);
  ASSERT_EQ(ks.size(), 3u);
  EXPECT_EQ(ks[0].name, "conv_igemm_128x64");
  EXPECT_EQ(ks[0].regsEstimate, 128);
  const RKernel& big = ks[1];
  EXPECT_EQ(big.name, "conv_igemm_64x64");
  EXPECT_EQ(big.regsEstimate, 128);  // convolutions are offered at 128 registers
  EXPECT_EQ(big.numRTasks, 1);
  EXPECT_EQ(big.syncCount, 144 / 8 + 1);
  EXPECT_EQ(big.sharedBytes, 4 * 2 * 8 * (68 + 68));  // weights K-major, im2col columns N-major
  EXPECT_DOUBLE_EQ(big.flops, 2.0 * 32 * 64 * 144);
  const RKernel& small = ks[2];
  EXPECT_EQ(small.numRTasks, 2);  // 1 tile row x 2 tile columns
  EXPECT_EQ(small.params.at("K"), 144);
  // Weights: 32x144 once per tile column; columns: 144x64 once per tile row; output once.
  EXPECT_DOUBLE_EQ(small.bytes, 4.0 * (2.0 * 32 * 144 + 144 * 64 + 32 * 64));
  EXPECT_DOUBLE_EQ(big.bytes, 4.0 * (32 * 144 + 144 * 64 + 32 * 64));
}

TEST(ConvKernels, DepthwiseFigures) {
  std::mt19937 rng(3);
  OneNode t;
  t.add("X", {2, 3, 20, 20}, rng);
  t.add("W", {3, 1, 3, 3}, rng);
  t.finish("Conv", attrs({{"group", int64_t{3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const RKernel k = convKernels(t.graph(), t.node).at(0);
  EXPECT_EQ(k.name, "conv_depthwise");
  EXPECT_EQ(k.numRTasks, 2 * 3 * 2);  // 400 outputs per plane in chunks of 256
  EXPECT_EQ(k.syncCount, 0);
  EXPECT_EQ(k.threads(), 128);
  EXPECT_DOUBLE_EQ(k.flops, 2.0 * 2 * 3 * 400 * 9);
}

TEST(ConvKernels, RejectsUnknownShapes) {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("X", {ir::kUnknownDim, 3, 8, 8});
  const ir::ValueId w = b.input("W", {4, 3, 3, 3});
  b.output(b.op("Conv", "c", {x, w}));
  ASSERT_TRUE(b.infer().empty());
  try {
    convKernels(b.graph(), 0);
    FAIL() << "unknown batch accepted";
  } catch (const ops::OpError& e) {
    EXPECT_NE(std::string(e.what()).find("known shapes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rammer::kernels

// FusedElementwise and the lowered RNN cell ops: every candidate's rTasks,
// run in shuffled order, reproduce the op's reference compute.
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;
using rammer::testing::randomTensor;

namespace {

// A FusedElementwise over graph inputs of the given shapes.
GraphBuilder fused(const std::string& expr, const std::vector<ir::Shape>& shapes) {
  GraphBuilder b;
  std::vector<ir::ValueId> in;
  for (size_t i = 0; i < shapes.size(); ++i) in.push_back(b.input("x" + std::to_string(i), shapes[i]));
  b.output(b.op("FusedElementwise", "fused", in, attrs({{"expr", expr}})));
  b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
  EXPECT_TRUE(b.infer().empty());
  return b;
}

}  // namespace

TEST(ElementwiseKernels, SameShape) {
  GraphBuilder b = fused("(relu (add x0 x1))", {{3, 40, 50}, {3, 40, 50}});
  size_t n = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4, &n);
  EXPECT_EQ(n, 2u);  // 6000 elements: 6 rTasks of 1k or 2 of 4k
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->candidates[0].name, "elementwise_1k");
  EXPECT_EQ(k->candidates[0].numRTasks, 6);
  EXPECT_EQ(k->candidates[1].numRTasks, 2);
  EXPECT_DOUBLE_EQ(k->candidates[0].flops, 6000.0 * 2);
}

TEST(ElementwiseKernels, BroadcastMiddleAndLeadingDims) {
  GraphBuilder b = fused("(mul (sigmoid x0) (sub x1 x2))", {{2, 3, 4, 5}, {3, 1, 5}, {1}});
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
}

TEST(ElementwiseKernels, OuterProductBroadcast) {
  GraphBuilder b = fused("(clip (add x0 x1) -0.5 0.5)", {{7, 1}, {1, 9}});
  checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
}

TEST(ElementwiseKernels, CudaTextReadsBroadcastInputsByCoordinates) {
  GraphBuilder b = fused("(add x0 x1)", {{4, 6}, {6}});
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok()) << k.errorText();
  const std::string& src = k->candidates[0].cudaSource;
  // elementwise.cuh's body: x0 read at i, x1 along the output's last dim
  // (stride 1), broadcast over the first (stride 0); the expression is Op.
  EXPECT_NE(src.find("rammer_elementwise<int, 256, 1024LL, 24LL, Op, RammerReadSame, "
                     "RammerReadBroadcast<RammerBox<6LL, 1LL, 4LL, 0LL>>>(rtask_id, tid, smem, out0, in0, in1);"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("const float e2 = (e0 + e1);"), std::string::npos) << src;
  EXPECT_NE(src.find("__device__ void rk_n0_elementwise_1k("), std::string::npos) << src;
  EXPECT_EQ(k->candidates[0].syncCount, 0);
}

namespace {

GraphBuilder lstmCell(bool withPeepholes, bool withState, float clip) {
  const int64_t B = 3, H = 5;
  GraphBuilder b;
  auto xw = b.input("xw", {B, 4 * H});
  auto hr = b.input("hr", {B, 4 * H});
  auto bias = b.constant("bias", randomTensor({4 * H}, 3));
  std::vector<ir::ValueId> in = {xw, hr, bias};
  in.push_back(withState ? b.input("c", {B, H}) : ir::kNone);
  if (withPeepholes) in.push_back(b.constant("P", randomTensor({3 * H}, 4)));
  ir::Attributes a = attrs({{"hidden_size", H}});
  if (clip > 0) a.set("clip", clip);
  b.node("LstmCell", "cell", in, a, 2);
  b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
  EXPECT_TRUE(b.infer().empty());
  return b;
}

}  // namespace

TEST(CellKernels, LstmCell) {
  for (bool peep : {false, true})
    for (bool state : {false, true}) {
      SCOPED_TRACE(std::to_string(peep) + std::to_string(state));
      GraphBuilder b = lstmCell(peep, state, peep ? 1.5f : 0.0f);
      checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
    }
}

TEST(CellKernels, GruCellAndGates) {
  const int64_t B = 2, H = 4;
  {
    GraphBuilder b;
    b.node("GruGates", "gates", {b.input("xw", {B, 3 * H}), b.input("hr", {B, 2 * H}), b.constant("bias", randomTensor({3 * H}, 5)),
                                  b.input("h", {B, H})},
           attrs({{"hidden_size", H}}), 2);
    b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
  }
  {
    GraphBuilder b;
    b.node("GruCell", "cell", {b.input("xw", {B, 3 * H}), b.input("hr", {B, 3 * H}), b.constant("bias", randomTensor({3 * H}, 6)),
                                b.constant("rbh", randomTensor({H}, 7)), b.input("h", {B, H})},
           attrs({{"hidden_size", H}, {"activations", std::vector<std::string>{"HardSigmoid", "Relu"}}}), 1);
    b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
  }
  {
    GraphBuilder b;
    b.node("GruCandidate", "cand", {b.input("xw", {B, 3 * H}), b.input("rhr", {B, H}), ir::kNone, b.input("z", {B, H}),
                                     b.input("h", {B, H})},
           attrs({{"hidden_size", H}}), 1);
    b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
  }
}

// A cell that carries its recurrent product (ops::CellRecurrence): the
// GEMV gates variant's declared rows, H ragged against both column runs.
TEST(CellKernels, CarriedRecurrentProductTilesMatchTheReference) {
  const int64_t B = 2, H = 45, K = 19;
  {
    GraphBuilder b;
    b.node("LstmCell", "cell",
           {b.input("xw", {B, 4 * H}), ir::kNone, b.constant("bias", randomTensor({4 * H}, 8)), b.input("c", {B, H}),
            b.constant("P", randomTensor({3 * H}, 9)), b.input("h", {B, K}),
            b.constant("rT", randomTensor({K, 4 * H}, 10))},
           attrs({{"hidden_size", H}}), 2);
    b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
    ASSERT_TRUE(b.infer().empty());
    auto ks = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
    ASSERT_TRUE(ks.ok()) << ks.errorText();
    ASSERT_EQ(ks->candidates.size(), 4u);
    EXPECT_EQ(ks->candidates[0].numRTasks, 2);  // 45 columns in runs of 32
    EXPECT_EQ(ks->candidates[1].numRTasks, 6);  // and of 8
    // Each again with its slice of rT kept in shared memory (issue #45
    // item 3): 19 rows of 4 x 32 floats, of 4 x 8 padded to 40; and the tag.
    EXPECT_EQ(ks->candidates[2].name, "gemv_lstmcell_resident_j32");
    EXPECT_EQ(ks->candidates[2].residentBytes, 4 * 19 * 128 + 16);
    EXPECT_EQ(ks->candidates[3].name, "gemv_lstmcell_resident_j8");
    EXPECT_EQ(ks->candidates[3].residentBytes, 4 * 19 * 40 + 16);
    EXPECT_EQ(ks->candidates[3].numRTasks, 6);
    EXPECT_EQ(ks->candidates[3].residentValue, "rT");
    EXPECT_DOUBLE_EQ(ks->candidates[3].residentReadBytes, 4.0 * 19 * 4 * 45);
    EXPECT_DOUBLE_EQ(ks->candidates[1].bytes - ks->candidates[3].bytes, ks->candidates[3].residentReadBytes);
    checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
  }
  {
    GraphBuilder b;
    b.node("GruCell", "cell",
           {b.input("xw", {B, 3 * H}), ir::kNone, b.constant("bias", randomTensor({3 * H}, 11)),
            b.constant("rbh", randomTensor({H}, 12)), b.input("hprev", {B, H}), b.input("h", {B, K}),
            b.constant("rT", randomTensor({K, 3 * H}, 13))},
           attrs({{"hidden_size", H}}), 1);
    b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 1e-4);
  }
  {  // Over the accumulator budget: one clear refusal.
    GraphBuilder b;
    b.node("LstmCell", "cell", {b.input("xw", {5, 4 * H}), ir::kNone, ir::kNone, ir::kNone, ir::kNone,
                                b.input("h", {5, K}), b.constant("rT", randomTensor({K, 4 * H}, 14))},
           attrs({{"hidden_size", H}}), 2);
    b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
    ASSERT_TRUE(b.infer().empty());
    auto ks = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
    ASSERT_FALSE(ks.ok());
    EXPECT_NE(ks.errorText().find("batch x gate blocks <= 16, got 5 x 4"), std::string::npos) << ks.errorText();
  }
}

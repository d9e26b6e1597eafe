// The lowered RNN cell ops (LstmCell, GruGates, GruCandidate, GruCell) against
// numpy: B = 2, H = 3, inputs from rnntest::wave. The numpy script restates
// the ONNX LSTM/GRU step equations directly (float64) for one step.
#include <gtest/gtest.h>

#include "core/ops/rnn/cell_ops.h"
#include "tests/core/ops/rnn_test_util.h"

namespace rammer::ops {
namespace {

using namespace rnntest;
using Strings = std::vector<std::string>;

// ---- reference values (numpy, /usr/bin/python3) ----
// LstmCell with xw, hr, bias, c_prev, P; default activations.
const std::vector<float> kFullH = {0.186067139f, 0.391351588f, 0.170983215f, 0.201964174f, 0.0485068582f, -0.201320164f};
const std::vector<float> kFullC = {0.23414798f, 0.85700365f, 1.12150556f, 0.926979421f, 0.254824352f, -0.692846875f};
// LstmCell with only xw, clip 0.5, input_forget 1.
const std::vector<float> kMinH = {0.037864413f, 0.156651038f, 0.109507485f, 0.105699927f, 0.0425145445f, -0.063787391f};
const std::vector<float> kMinC = {0.0609055381f, 0.287649137f, 0.287649137f, 0.287649137f, 0.113088825f, -0.170590781f};
// LstmCell, direction 1 of a bidirectional list: f = HardSigmoid(0.3, 0.4), g = Affine(2, 0.1), h = Softsign.
const std::vector<float> kRevH = {0.151866037f, 0.311915851f, 0.138223824f, 0.0f, 0.0f, -0.0782477878f};
const std::vector<float> kRevC = {0.252043637f, 1.72303545f, 2.78988526f, 2.08292536f, 0.258012795f, -0.838370229f};
// GruGates: z and r * h_prev.
const std::vector<float> kGatesZ = {0.750626825f, 0.852649135f, 0.829692711f, 0.57503407f, 0.721423735f, 0.760081745f};
const std::vector<float> kGatesRH = {0.517585107f, 0.362539702f, 0.13284926f, 0.0977422305f, -0.276774142f, -0.320969621f};
// GruCandidate: (1 - z) * tanh(xw_h + b_h + rhr) + z * h_prev.
const std::vector<float> kCandH = {0.596594627f, 0.833681073f, 0.598881247f, -0.425218064f, -0.774356183f, -0.530779948f};
// GruCell (linear_before_reset = 1).
const std::vector<float> kGruCellH = {0.41928687f, 0.746099873f, 0.597695338f, -0.0781348772f, -0.549358255f, -0.748566125f};

constexpr int64_t B = 2, H = 3;

// Calls one com.rammer op through the builtin registry.
struct CellCall : OpCall {
  std::vector<ir::Tensor> run() const {
    ir::Node n = node();
    n.domain = kRammerDomain;
    std::vector<const ir::Tensor*> values;
    for (const auto& in : inputs) values.push_back(in ? &*in : nullptr);
    return cellDef().compute(OpContext(n, opset, types(), values));
  }
  std::vector<ir::TensorType> inferTypes(std::vector<ir::TensorType> t) const {
    ir::Node n = node();
    n.domain = kRammerDomain;
    return cellDef().infer(OpContext(n, opset, t, std::vector<const ir::Tensor*>(t.size(), nullptr)));
  }
  double cellFlops() const {
    ir::Node n = node();
    OpContext ctx(n, opset, types(), std::vector<const ir::Tensor*>(inputs.size(), nullptr));
    return cellDef().flops(ctx, cellDef().infer(ctx));
  }
  const OpDef& cellDef() const {
    const OpDef* d = OpRegistry::builtin().find(kRammerDomain, type);
    if (!d) throw std::runtime_error("op not registered: " + type);
    return *d;
  }
};

ir::Tensor xw4() { return waveTensor({B, 4 * H}, 0.1, 1.0); }
ir::Tensor hr4() { return waveTensor({B, 4 * H}, 0.2, 0.5); }
ir::Tensor cPrev() { return waveTensor({B, H}, 0.4, 1.0); }

TEST(LstmCell, AllInputsMatchNumpy) {
  CellCall c;
  c.type = kLstmCellOp;
  c.inputs = {xw4(), hr4(), waveTensor({4 * H}, 0.3, 0.3), cPrev(), waveTensor({3 * H}, 0.5, 0.5)};
  c.attrs = attrs({{"hidden_size", H}});
  c.outputs = {true, true};
  auto out = c.run();
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], {B, H}, kFullH);
  expectTensor(out[1], {B, H}, kFullC);
}

TEST(LstmCell, OmittedInputsAreZeroAndClipInputForgetApply) {
  CellCall c;
  c.type = kLstmCellOp;
  c.inputs = {xw4()};  // hidden_size from xw's 4H columns
  c.attrs = attrs({{"clip", 0.5f}, {"input_forget", int64_t{1}}});
  c.outputs = {true, true};
  auto out = c.run();
  expectTensor(out[0], {B, H}, kMinH);
  expectTensor(out[1], {B, H}, kMinC);
}

TEST(LstmCell, UsesItsDirectionsActivationsFromTheLstmList) {
  CellCall c;
  c.type = kLstmCellOp;
  c.inputs = {xw4(), hr4(), std::nullopt, cPrev()};
  c.attrs = attrs({{"hidden_size", H},
                   {"activations", Strings{"Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Affine", "Softsign"}},
                   {"activation_alpha", std::vector<float>{0.3f, 2.0f}},
                   {"activation_beta", std::vector<float>{0.4f, 0.1f}},
                   {"num_directions", int64_t{2}},
                   {"direction_index", int64_t{1}}});
  c.outputs = {true, true};
  auto out = c.run();
  expectTensor(out[0], {B, H}, kRevH);
  expectTensor(out[1], {B, H}, kRevC);
  // Direction 0 of the same list is the default LSTM: differs from direction 1.
  c.attrs.set("direction_index", int64_t{0});
  EXPECT_NE(c.run()[1].data<float>()[1], kRevC[1]);
}

TEST(LstmCell, OmittedOutputIsLeftEmpty) {
  CellCall c;
  c.type = kLstmCellOp;
  c.inputs = {xw4(), hr4(), waveTensor({4 * H}, 0.3, 0.3), cPrev(), waveTensor({3 * H}, 0.5, 0.5)};
  c.outputs = {true, false};
  auto out = c.run();
  ASSERT_EQ(out.size(), 2u);
  expectTensor(out[0], {B, H}, kFullH);
  EXPECT_TRUE(out[1].empty());
}

TEST(LstmCell, InferPropagatesUnknownBatchAndChecksShapes) {
  CellCall c;
  c.type = kLstmCellOp;
  c.attrs = attrs({{"hidden_size", H}});
  c.outputs = {true, true};
  c.inputs = {xw4(), hr4()};
  auto t = c.inferTypes({{ir::DType::Float32, {-1, 12}}, {ir::DType::Float32, {-1, 12}}});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].shape, (ir::Shape{-1, 3}));
  EXPECT_EQ(t[1].dtype, ir::DType::Float32);
  // The batch comes from whichever row input knows it.
  t = c.inferTypes({{ir::DType::Float32, {-1, 12}}, {ir::DType::Float32, {5, 12}}});
  EXPECT_EQ(t[0].shape, (ir::Shape{5, 3}));

  std::string msg = opErrorOf([&] { c.inferTypes({{ir::DType::Float32, {2, 12}}, {ir::DType::Float32, {2, 8}}}); });
  EXPECT_NE(msg.find("hr has shape [2, 8], expected [2, 12]"), std::string::npos) << msg;
  msg = opErrorOf([&] {
    c.inferTypes({{ir::DType::Float32, {2, 12}}, {}, {}, {ir::DType::Float32, {3, 3}}});
  });
  EXPECT_NE(msg.find("c_prev has shape [3, 3], expected [2, 3]"), std::string::npos) << msg;
  msg = opErrorOf([&] { c.inferTypes({{ir::DType::Float64, {2, 12}}}); });
  EXPECT_FALSE(msg.empty());
  c.attrs = attrs({{"num_directions", int64_t{2}}, {"direction_index", int64_t{2}}});
  msg = opErrorOf([&] { c.inferTypes({{ir::DType::Float32, {2, 12}}}); });
  EXPECT_NE(msg.find("direction_index 2"), std::string::npos) << msg;
  c.attrs = attrs({});
  msg = opErrorOf([&] { c.inferTypes({{ir::DType::Float32, {2, 10}}}); });
  EXPECT_NE(msg.find("not a multiple of 4"), std::string::npos) << msg;
}

TEST(LstmCell, FlopsCountGatesStateAndPeepholes) {
  CellCall c;
  c.type = kLstmCellOp;
  c.inputs = {xw4(), hr4(), waveTensor({4 * H}, 0.3, 0.3), cPrev(), waveTensor({3 * H}, 0.5, 0.5)};
  c.outputs = {true, true};
  // per [B, H] element: 4 gates x 3, c update 3, h 2, peepholes 6.
  EXPECT_DOUBLE_EQ(c.cellFlops(), static_cast<double>(B * H * (12 + 3 + 2 + 6)));
  const OpDef* def = OpRegistry::builtin().find(kRammerDomain, kLstmCellOp);
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->category, OpCategory::Elementwise);
}

TEST(GruCells, GatesAndCandidateMatchNumpy) {
  const ir::Tensor xw = waveTensor({B, 3 * H}, 0.6, 1.0), bias = waveTensor({3 * H}, 0.8, 0.3);
  const ir::Tensor h = waveTensor({B, H}, 0.9, 1.0);
  CellCall gates;
  gates.type = kGruGatesOp;
  gates.inputs = {xw, waveTensor({B, 2 * H}, 0.7, 0.5), bias, h};
  gates.attrs = attrs({{"hidden_size", H}});
  gates.outputs = {true, true};
  auto zr = gates.run();
  expectTensor(zr[0], {B, H}, kGatesZ);
  expectTensor(zr[1], {B, H}, kGatesRH);

  CellCall cand;
  cand.type = kGruCandidateOp;
  cand.inputs = {xw, waveTensor({B, H}, 1.1, 0.5), bias, waveTensor({B, H}, 1.2, 0.4, 0.5), h};
  cand.attrs = attrs({{"hidden_size", H}});
  expectTensor(cand.run()[0], {B, H}, kCandH);

  cand.inputs[kGruCandZ] = std::nullopt;
  EXPECT_NE(opErrorOf([&] { cand.run(); }).find("missing the z input"), std::string::npos);
}

TEST(GruCells, GatesWithoutPreviousStateGiveZeroResetProduct) {
  CellCall gates;
  gates.type = kGruGatesOp;
  gates.inputs = {waveTensor({B, 3 * H}, 0.6, 1.0)};
  gates.outputs = {true, true};
  auto zr = gates.run();
  expectTensor(zr[1], {B, H}, std::vector<float>(B * H, 0.0f));
  EXPECT_GT(zr[0].data<float>()[0], 0.0f);
  EXPECT_LT(zr[0].data<float>()[0], 1.0f);
}

TEST(GruCells, LinearBeforeResetCellMatchesNumpy) {
  CellCall c;
  c.type = kGruCellOp;
  c.inputs = {waveTensor({B, 3 * H}, 0.6, 1.0), waveTensor({B, 3 * H}, 1.3, 0.5), waveTensor({3 * H}, 0.8, 0.3),
              waveTensor({H}, 1.4, 0.3), waveTensor({B, H}, 0.9, 1.0)};
  c.attrs = attrs({{"hidden_size", H}, {"linear_before_reset", int64_t{1}}});
  expectTensor(c.run()[0], {B, H}, kGruCellH);
  std::string msg = opErrorOf([&] {
    c.inferTypes({{ir::DType::Float32, {2, 9}}, {ir::DType::Float32, {2, 6}}});
  });
  EXPECT_NE(msg.find("hr has shape [2, 6], expected [2, 9]"), std::string::npos) << msg;
}

}  // namespace
}  // namespace rammer::ops

namespace rammer::ops {
namespace {

// h [B, K] x rT [K, n] in float64, rounded once: the hr tensor a cell that
// carries its recurrent product (CellRecurrence) computes itself.
ir::Tensor product(const ir::Tensor& h, const ir::Tensor& rT) {
  const int64_t rows = h.shape()[0], K = h.shape()[1], n = rT.shape()[1];
  ir::Tensor out(ir::DType::Float32, {rows, n});
  for (int64_t b = 0; b < rows; ++b)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double{h.data<float>()[b * K + k]} * rT.data<float>()[k * n + j];
      out.data<float>()[b * n + j] = static_cast<float>(s);
    }
  return out;
}

TEST(CellRecurrence, EveryCellGivesWhatItsHrTensorGives) {
  constexpr int64_t K = 5;
  const ir::Tensor h = waveTensor({B, K}, 0.7, 0.8);
  for (const char* type : {kLstmCellOp, kGruGatesOp, kGruCandidateOp, kGruCellOp}) {
    SCOPED_TRACE(type);
    const CellRecurrence& rec = *cellRecurrence(type);
    const ir::Tensor rT = waveTensor({K, rec.blocks * H}, 0.9, 0.6);
    const bool lstm = std::string(type) == kLstmCellOp;
    const int64_t G = lstm ? 4 : 3;
    CellCall withTensor;
    withTensor.type = type;
    withTensor.attrs = attrs({{"hidden_size", H}});
    withTensor.outputs = std::vector<bool>(lstm || std::string(type) == kGruGatesOp ? 2 : 1, true);
    withTensor.inputs.assign(rec.hSlot, std::nullopt);
    withTensor.inputs[0] = waveTensor({B, G * H}, 0.1, 1.0);
    withTensor.inputs[2] = waveTensor({G * H}, 0.3, 0.3);
    if (std::string(type) == kGruCandidateOp) withTensor.inputs[kGruCandZ] = waveTensor({B, H}, 0.4, 0.5);
    withTensor.inputs[rec.hr] = product(h, rT);
    CellCall carried = withTensor;
    carried.inputs[rec.hr] = std::nullopt;
    carried.inputs.resize(rec.weightSlot + 1);
    carried.inputs[rec.hSlot] = h;
    carried.inputs[rec.weightSlot] = rT;
    const auto want = withTensor.run(), got = carried.run();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      for (int64_t e = 0; e < want[i].numel(); ++e)
        EXPECT_NEAR(got[i].data<float>()[e], want[i].data<float>()[e], 1e-6) << "output " << i << " element " << e;
    // The product's flops join the cell's.
    EXPECT_DOUBLE_EQ(carried.cellFlops() - withTensor.cellFlops(), static_cast<double>(B * H * 2 * K * rec.blocks));
  }
}

TEST(CellRecurrence, HalfAProductOrTwoOfThemAreRefusedWithWhatIsWrong) {
  const CellRecurrence& rec = *cellRecurrence(kLstmCellOp);
  CellCall c;
  c.type = kLstmCellOp;
  c.attrs = attrs({{"hidden_size", H}});
  c.outputs = {true, true};
  auto types = [](std::vector<ir::Shape> shapes) {
    std::vector<ir::TensorType> t;
    for (auto& s : shapes) t.push_back(s.empty() ? ir::TensorType{} : ir::TensorType{ir::DType::Float32, s});
    return t;
  };
  auto refusal = [&](std::vector<ir::Shape> shapes) {
    c.inputs.assign(shapes.size(), std::nullopt);
    return opErrorOf([&] { c.inferTypes(types(shapes)); });
  };
  std::string msg = refusal({{B, 12}, {B, 12}, {}, {}, {}, {B, 5}, {5, 12}});
  EXPECT_NE(msg.find("both a recurrent product tensor and its operands"), std::string::npos) << msg;
  msg = refusal({{B, 12}, {}, {}, {}, {}, {}, {5, 12}});
  EXPECT_NE(msg.find("R^T but not its h"), std::string::npos) << msg;
  msg = refusal({{B, 12}, {}, {}, {}, {}, {B, 5}});
  EXPECT_NE(msg.find("h but not its R^T"), std::string::npos) << msg;
  msg = refusal({{B, 12}, {}, {}, {}, {}, {B, 5}, {5, 8}});
  EXPECT_NE(msg.find("recurrent R^T has shape [5, 8], expected [5, 12]"), std::string::npos) << msg;
  msg = refusal({{B, 12}, {}, {}, {}, {}, {B + 1, 5}, {5, 12}});
  EXPECT_NE(msg.find("recurrent h has shape [3, 5], expected [2, 5]"), std::string::npos) << msg;
  EXPECT_EQ(rec.weightSlot, 6u);
  EXPECT_EQ(cellRecurrence("MatMul"), nullptr);
}

}  // namespace
}  // namespace rammer::ops

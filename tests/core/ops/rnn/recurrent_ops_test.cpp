// LSTM / GRU / RNN against PyTorch 1.13 (torch.nn.LSTM/GRU/RNN with the same
// weights, gate blocks permuted to PyTorch's order; packed sequences for
// sequence_lens), ONNX's own numpy helpers (onnx.backend.test.case.node.lstm /
// gru: peepholes, GRU linear_before_reset=0) and small numpy loops.
// Sizes: seq 3, batch 2, input 2, hidden 3. Inputs come from rnntest::wave:
//   X = wave(12, 1.0, 1.0), W = wave(.., 0.1), R = wave(.., 0.2),
//   B = wave(.., 0.3, 0.2), initial_h = wave(.., 0.4), initial_c = wave(.., 0.5)
#include <gtest/gtest.h>

#include "core/ops/rnn/rnn_activations.h"
#include "core/ops/rnn/rnn_spec.h"
#include "tests/core/ops/rnn_test_util.h"

namespace rammer::ops {
namespace {

using namespace rnntest;
using Strings = std::vector<std::string>;

constexpr int64_t S = 3, B = 2, I = 2, H = 3;

struct RnnSetup {
  int64_t gates = 4, dirs = 1;
  bool bias = true, h0 = true, c0 = true;
  std::optional<ir::Tensor> lens = std::nullopt;
};

// Inputs X, W, R, B, sequence_lens, initial_h (, initial_c for LSTM).
std::vector<std::optional<ir::Tensor>> rnnInputs(const RnnSetup& s) {
  const int64_t gh = s.gates * H;
  std::vector<std::optional<ir::Tensor>> in{waveTensor({S, B, I}, 1.0, 1.0), waveTensor({s.dirs, gh, I}, 0.1),
                                            waveTensor({s.dirs, gh, H}, 0.2)};
  in.push_back(s.bias ? std::optional(waveTensor({s.dirs, 2 * gh}, 0.3, 0.2)) : std::nullopt);
  in.push_back(s.lens);
  in.push_back(s.h0 ? std::optional(waveTensor({s.dirs, B, H}, 0.4)) : std::nullopt);
  if (s.gates == 4) in.push_back(s.c0 ? std::optional(waveTensor({s.dirs, B, H}, 0.5)) : std::nullopt);
  return in;
}

ir::Tensor lensTensor(std::vector<int32_t> v) {
  return ir::Tensor::fromVector<int32_t>({static_cast<int64_t>(v.size())}, v);
}

// ---- reference values (generated with /usr/bin/python3, torch 1.13, onnx 1.12) ----

// LSTM forward, B + initial states (torch.nn.LSTM)
const std::vector<float> kLstmFwdY = {0.2409948f, 0.2426073f, -0.02155951f, 0.06691525f, 0.1678046f, -0.06381363f, 0.1751106f, 0.1497379f, -0.003886658f, 0.05769252f, 0.04473137f, -0.02910499f, 0.1676252f, 0.2324665f, -0.06265333f, 0.1017175f, 0.210919f, -0.02881225f};
const std::vector<float> kLstmFwdYh = {0.1676252f, 0.2324665f, -0.06265333f, 0.1017175f, 0.210919f, -0.02881225f};
const std::vector<float> kLstmFwdYc = {0.4896093f, 0.5449979f, -0.1148421f, 0.3465402f, 0.5706919f, -0.04710909f};
// LSTM bidirectional, no B, zero initial states
const std::vector<float> kLstmBiY = {0.06969751f, 0.1984053f, -0.04743533f, 0.01292069f, 0.08950146f, 0.01754501f, 0.01656616f, -0.01132036f, 0.129399f, 0.009691001f, -0.02171092f, 0.05543963f, -0.02369595f, 0.05914671f, -0.004388882f, -0.03710768f, -0.03876483f, -0.002388951f, 0.1561988f, -0.00321362f, -0.01698252f, 0.1088218f, 0.01465179f, 0.02592412f, 0.06577807f, 0.1528887f, -0.05565674f, 0.03875589f, 0.1670526f, -0.007813822f, -0.09908783f, 0.0001867883f, 0.1249032f, -0.1235339f, -0.02964051f, 0.1346005f};
const std::vector<float> kLstmBiYh = {0.06577807f, 0.1528887f, -0.05565674f, 0.03875589f, 0.1670526f, -0.007813822f, 0.01656616f, -0.01132036f, 0.129399f, 0.009691001f, -0.02171092f, 0.05543963f};
const std::vector<float> kLstmBiYc = {0.1796319f, 0.3227869f, -0.08887056f, 0.1249371f, 0.4016661f, -0.01158851f, 0.02731107f, -0.03216621f, 0.418026f, 0.01686566f, -0.04706963f, 0.1385085f};
// LSTM bidirectional, sequence_lens {3, 2}, B + initial states (packed sequence)
const std::vector<float> kLstmLensY = {0.2409948f, 0.2426073f, -0.02155951f, 0.06691525f, 0.1678046f, -0.06381363f, -0.04927002f, -0.04687143f, 0.17959f, 0.1255889f, 0.04979521f, 0.03629161f, 0.1751106f, 0.1497379f, -0.003886658f, 0.05769252f, 0.04473137f, -0.02910499f, 0.1029296f, -0.0747049f, 0.08221795f, 0.3267324f, 0.1233541f, -0.01818985f, 0.1676252f, 0.2324665f, -0.06265333f, 0.0f, 0.0f, 0.0f, -0.2206166f, -0.1010635f, 0.2754162f, 0.0f, 0.0f, 0.0f};
const std::vector<float> kLstmLensYh = {0.1676252f, 0.2324665f, -0.06265333f, 0.05769252f, 0.04473137f, -0.02910499f, -0.04927002f, -0.04687143f, 0.17959f, 0.1255889f, 0.04979521f, 0.03629161f};
const std::vector<float> kLstmLensYc = {0.4896093f, 0.5449979f, -0.1148421f, 0.09073821f, 0.08512619f, -0.09399229f, -0.07541448f, -0.1241444f, 0.5662655f, 0.2008287f, 0.09488091f, 0.09497182f};
// LSTM forward, batch_first=True: Y [batch, seq, 1, hidden], Y_h/Y_c [batch, 1, hidden]
const std::vector<float> kLstmBatchFirstY = {0.2409948f, 0.2426073f, -0.02155951f, 0.1751106f, 0.1497379f, -0.003886658f, 0.1676252f, 0.2324665f, -0.06265333f, 0.06691525f, 0.1678046f, -0.06381363f, 0.05769252f, 0.04473137f, -0.02910499f, 0.1017175f, 0.210919f, -0.02881225f};
// LSTM forward with peepholes P = wave(9, 0.6) (ONNX LSTM_Helper)
const std::vector<float> kLstmPeepY = {0.2661304f, 0.2334625f, -0.03563872f, 0.06621858f, 0.161238f, -0.06781094f, 0.1287322f, 0.1215074f, -0.008301378f, 0.05267278f, 0.02853902f, -0.03022958f, 0.1602465f, 0.2143481f, -0.06119461f, 0.1041222f, 0.1991023f, -0.02631613f};
const std::vector<float> kLstmPeepYh = {0.1602465f, 0.2143481f, -0.06119461f, 0.1041222f, 0.1991023f, -0.02631613f};
// LSTM forward, input_forget=1, clip=0.5, W = 4 * wave(24, 0.1), B, zero states (numpy)
const std::vector<float> kLstmCifgY = {0.1056999f, 0.1056999f, -0.114018f, 0.09007306f, 0.1056999f, 0.1089716f, 0.002852007f, 0.002694063f, 0.08091788f, -0.0207468f, 0.002852007f, 0.02585179f, 0.1063015f, 0.1175928f, -0.02423623f, 0.1013046f, 0.1063015f, -0.0220129f};
const std::vector<float> kLstmCifgYc = {0.289379f, 0.289379f, -0.03895594f, 0.2750609f, 0.289379f, -0.03537916f};
// GRU bidirectional, linear_before_reset=1 (torch.nn.GRU), B + initial_h
const std::vector<float> kGruTorchY = {0.2378903f, 0.1599066f, -0.1785594f, 0.113552f, -0.1149383f, -0.381568f, -0.3090965f, -0.2242138f, -0.1674567f, -0.09932433f, -0.0387972f, -0.11012f, -0.2349263f, 0.2802243f, 0.05483693f, -0.3489341f, 0.03914173f, -0.07082999f, -0.5780948f, -0.01439932f, 0.03714389f, -0.1849291f, 0.1756527f, 0.07993594f, -0.1545853f, -0.01496524f, -0.1785306f, -0.1314563f, -0.1550434f, -0.2595834f, -0.3490596f, -0.4976334f, -0.1486534f, 0.2479863f, 0.1580071f, -0.1439727f};
const std::vector<float> kGruTorchYh = {-0.1545853f, -0.01496524f, -0.1785306f, -0.1314563f, -0.1550434f, -0.2595834f, -0.3090965f, -0.2242138f, -0.1674567f, -0.09932433f, -0.0387972f, -0.11012f};
// GRU bidirectional, linear_before_reset=1, sequence_lens {1, 3}
const std::vector<float> kGruLensY = {0.2378903f, 0.1599066f, -0.1785594f, 0.113552f, -0.1149383f, -0.381568f, -0.2460309f, -0.5061688f, -0.2281288f, -0.09932433f, -0.0387972f, -0.11012f, 0.0f, 0.0f, 0.0f, -0.3489341f, 0.03914173f, -0.07082999f, 0.0f, 0.0f, 0.0f, -0.1849291f, 0.1756527f, 0.07993594f, 0.0f, 0.0f, 0.0f, -0.1314563f, -0.1550434f, -0.2595834f, 0.0f, 0.0f, 0.0f, 0.2479863f, 0.1580071f, -0.1439727f};
const std::vector<float> kGruLensYh = {0.2378903f, 0.1599066f, -0.1785594f, -0.1314563f, -0.1550434f, -0.2595834f, -0.2460309f, -0.5061688f, -0.2281288f, -0.09932433f, -0.0387972f, -0.11012f};
// GRU forward, linear_before_reset=0 (ONNX GRU_Helper)
const std::vector<float> kGruOnnxY = {0.2155126f, 0.1486077f, -0.1805553f, 0.05667308f, -0.1386582f, -0.3909747f, -0.2550613f, 0.2347289f, 0.008906998f, -0.3825009f, -0.02740693f, -0.09237601f, -0.2110716f, -0.0612935f, -0.2035147f, -0.2098047f, -0.2176089f, -0.2785364f};
const std::vector<float> kGruOnnxYh = {-0.2110716f, -0.0612935f, -0.2035147f, -0.2098047f, -0.2176089f, -0.2785364f};
// GRU reverse, linear_before_reset=0 (GRU_Helper over the time-reversed X, Y reversed back)
const std::vector<float> kGruOnnxRevY = {-0.1499429f, -0.05154707f, -0.2507551f, -0.2677616f, -0.1977272f, -0.2201542f, -0.2850676f, 0.2030576f, 0.05814017f, -0.3513474f, -0.02689864f, -0.148165f, 0.149632f, 0.09955376f, -0.1116686f, 0.1602213f, -0.1639632f, -0.477287f};
const std::vector<float> kGruOnnxRevYh = {-0.1499429f, -0.05154707f, -0.2507551f, -0.2677616f, -0.1977272f, -0.2201542f};
// RNN bidirectional, Tanh (torch.nn.RNN), B + initial_h
const std::vector<float> kRnnTanhY = {0.773553f, 0.7496762f, -0.4258553f, 0.08901618f, 0.6236261f, 0.0982637f, -0.8406848f, 0.1325497f, 0.6844311f, -0.4701936f, 0.01162661f, 0.2298882f, -0.0293309f, -0.06946985f, -0.3774689f, 0.3078794f, -0.3487222f, -0.2920989f, 0.6939054f, -0.38271f, -0.3046053f, 0.4545863f, -0.06385565f, -0.1427947f, 0.2876519f, 0.6410409f, 0.05879394f, 0.2254483f, 0.8025103f, 0.1296816f, -0.7495899f, -0.2099884f, 0.8081208f, -0.431686f, -0.2636248f, 0.3819163f};
const std::vector<float> kRnnTanhYh = {0.2876519f, 0.6410409f, 0.05879394f, 0.2254483f, 0.8025103f, 0.1296816f, -0.8406848f, 0.1325497f, 0.6844311f, -0.4701936f, 0.01162661f, 0.2298882f};
// RNN forward, Relu (torch.nn.RNN nonlinearity='relu'), B + initial_h
const std::vector<float> kRnnReluY = {1.029115f, 0.9722153f, 0.0f, 0.08925243f, 0.7309171f, 0.09858182f, 0.2960441f, 0.0f, 0.0f, 0.3604054f, 0.0f, 0.0f, 0.5441881f, 0.7861591f, 0.0f, 0.5171754f, 1.072433f, 0.0f};
// RNN bidirectional, activations {LeakyRelu, Affine}, alpha {.2, .5}, beta {.3}, clip .4, no B/h0 (numpy)
const std::vector<float> kRnnParamY = {0.3976918f, 0.4f, -0.02375106f, 0.04863097f, 0.3536945f, 0.07160191f, 0.1f, 0.3010442f, 0.4977164f, 0.2599631f, 0.2978308f, 0.2183579f, -0.03937221f, -0.08f, -0.0451545f, 0.000945133f, -0.08f, -0.04529171f, 0.5f, 0.3148806f, 0.1f, 0.5f, 0.3667872f, 0.1f, 0.2627723f, 0.4f, -0.01692888f, 0.2333026f, 0.4f, 0.01876714f, 0.1f, 0.2818891f, 0.5f, 0.1f, 0.1831108f, 0.5f};
const std::vector<float> kRnnParamYh = {0.2627723f, 0.4f, -0.01692888f, 0.2333026f, 0.4f, 0.01876714f, 0.1f, 0.3010442f, 0.4977164f, 0.2599631f, 0.2978308f, 0.2183579f};

const std::vector<bool> kAllLstmOutputs{true, true, true};
const std::vector<bool> kYAndYh{true, true};

// ---- LSTM ----

TEST(LstmOp, ForwardWithBiasAndInitialStatesMatchesTorch) {
  OpCall call{"LSTM", rnnInputs({}), attrs({{"hidden_size", int64_t{H}}}), kAllLstmOutputs};
  auto out = call.compute();
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], {S, 1, B, H}, kLstmFwdY);
  expectTensor(out[1], {1, B, H}, kLstmFwdYh);
  expectTensor(out[2], {1, B, H}, kLstmFwdYc);
}

TEST(LstmOp, BidirectionalWithoutBiasOrStatesMatchesTorch) {
  OpCall call{"LSTM", rnnInputs({.dirs = 2, .bias = false, .h0 = false, .c0 = false}),
              attrs({{"hidden_size", int64_t{H}}, {"direction", std::string("bidirectional")}}), kAllLstmOutputs};
  auto out = call.compute();
  expectTensor(out[0], {S, 2, B, H}, kLstmBiY);
  expectTensor(out[1], {2, B, H}, kLstmBiYh);
  expectTensor(out[2], {2, B, H}, kLstmBiYc);
}

TEST(LstmOp, SequenceLensStopTheStateAndZeroTheTail) {
  OpCall call{"LSTM", rnnInputs({.dirs = 2, .lens = lensTensor({3, 2})}),
              attrs({{"hidden_size", int64_t{H}}, {"direction", std::string("bidirectional")}}), kAllLstmOutputs};
  auto out = call.compute();
  expectTensor(out[0], {S, 2, B, H}, kLstmLensY);
  expectTensor(out[1], {2, B, H}, kLstmLensYh);
  expectTensor(out[2], {2, B, H}, kLstmLensYc);
  // int64 lengths are accepted too
  call.inputs[kRnnSeqLens] = ir::Tensor::fromVector<int64_t>({2}, {3, 2});
  expectTensor(call.compute()[1], {2, B, H}, kLstmLensYh);
}

TEST(LstmOp, OmittedOutputsAreLeftEmpty) {
  OpCall onlyC{"LSTM", rnnInputs({}), attrs({{"hidden_size", int64_t{H}}}), {false, false, true}};
  auto out = onlyC.compute();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].empty());
  EXPECT_TRUE(out[1].empty());
  expectTensor(out[2], {1, B, H}, kLstmFwdYc);

  OpCall onlyH{"LSTM", rnnInputs({}), attrs({{"hidden_size", int64_t{H}}}), {false, true}};
  out = onlyH.compute();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].empty());
  expectTensor(out[1], {1, B, H}, kLstmFwdYh);
}

TEST(LstmOp, BatchFirstLayoutMatchesTorchBatchFirst) {
  auto in = rnnInputs({});
  // X [seq, batch, input] -> [batch, seq, input]
  const std::vector<float> x = wave(S * B * I, 1.0, 1.0);
  std::vector<float> xt;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < S; ++t)
      for (int64_t i = 0; i < I; ++i) xt.push_back(x[(t * B + b) * I + i]);
  in[kRnnX] = f32({B, S, I}, xt);
  // With one direction [1, batch, hidden] and [batch, 1, hidden] hold the same order.
  in[kRnnInitialH]->reshape({B, 1, H});
  in[kRnnInitialC]->reshape({B, 1, H});
  OpCall call{"LSTM", in, attrs({{"hidden_size", int64_t{H}}, {"layout", int64_t{1}}}), kAllLstmOutputs, 14};
  auto out = call.compute();
  expectTensor(out[0], {B, S, 1, H}, kLstmBatchFirstY);
  expectTensor(out[1], {B, 1, H}, kLstmFwdYh);
  expectTensor(out[2], {B, 1, H}, kLstmFwdYc);
  auto types = call.infer();
  EXPECT_EQ(types[0].shape, (ir::Shape{B, S, 1, H}));
  EXPECT_EQ(types[1].shape, (ir::Shape{B, 1, H}));
}

TEST(LstmOp, PeepholesMatchOnnxReference) {
  auto in = rnnInputs({});
  in.push_back(waveTensor({1, 3 * H}, 0.6));
  OpCall call{"LSTM", in, attrs({{"hidden_size", int64_t{H}}}), kYAndYh};
  auto out = call.compute();
  expectTensor(out[0], {S, 1, B, H}, kLstmPeepY);
  expectTensor(out[1], {1, B, H}, kLstmPeepYh);
}

TEST(LstmOp, InputForgetAndClip) {
  auto in = rnnInputs({.h0 = false, .c0 = false});
  std::vector<float> w = wave(4 * H * I, 0.1);
  for (float& v : w) v *= 4.0f;
  in[kRnnW] = f32({1, 4 * H, I}, w);
  OpCall call{"LSTM", in,
              attrs({{"hidden_size", int64_t{H}}, {"input_forget", int64_t{1}}, {"clip", 0.5f}}),
              kAllLstmOutputs};
  auto out = call.compute();
  expectTensor(out[0], {S, 1, B, H}, kLstmCifgY);
  expectTensor(out[2], {1, B, H}, kLstmCifgYc);
}

TEST(LstmOp, ZeroLengthSequenceGivesZeroStates) {
  OpCall call{"LSTM", rnnInputs({.lens = lensTensor({0, 3})}), attrs({{"hidden_size", int64_t{H}}}),
              kAllLstmOutputs};
  auto out = call.compute();
  const float* y = out[0].data<float>();
  const float* yh = out[1].data<float>();
  const float* yc = out[2].data<float>();
  for (int64_t t = 0; t < S; ++t)
    for (int64_t j = 0; j < H; ++j) EXPECT_EQ(y[(t * B + 0) * H + j], 0.0f);
  for (int64_t j = 0; j < H; ++j) {
    EXPECT_EQ(yh[j], 0.0f);
    EXPECT_EQ(yc[j], 0.0f);
    // batch entry 1 runs the full sequence: same as without sequence_lens
    EXPECT_NEAR(yh[H + j], kLstmFwdYh[H + j], 1e-5f);
  }
}

TEST(LstmOp, InferPropagatesUnknownDimsAndHiddenFromR) {
  auto types = OpCall{"LSTM", rnnInputs({.dirs = 2}), attrs({{"direction", std::string("bidirectional")}}),
                      kAllLstmOutputs}
                   .infer(std::vector<ir::TensorType>{
                       {ir::DType::Float32, {-1, B, I}},
                       {ir::DType::Float32, {2, 4 * H, I}},
                       {ir::DType::Float32, {2, 4 * H, H}},
                   });
  ASSERT_EQ(types.size(), 3u);
  EXPECT_EQ(types[0], (ir::TensorType{ir::DType::Float32, {-1, 2, B, H}}));
  EXPECT_EQ(types[1], (ir::TensorType{ir::DType::Float32, {2, B, H}}));
  EXPECT_EQ(types[2], (ir::TensorType{ir::DType::Float32, {2, B, H}}));

  // Unknown rank of X: seq, batch unknown, hidden still from the attribute.
  ir::TensorType unknownX{ir::DType::Float32, {}, false};
  types = OpCall{"LSTM", {}, attrs({{"hidden_size", int64_t{5}}}), kYAndYh}.infer(
      std::vector<ir::TensorType>{unknownX, {ir::DType::Float32, {1, 20, 7}}, {ir::DType::Float32, {1, 20, 5}}});
  EXPECT_EQ(types[0].shape, (ir::Shape{-1, 1, -1, 5}));
}

TEST(LstmOp, WeightShapeErrorNamesExpectedAndActualShape) {
  // hidden_size 5 needs W [1, 20, 2]; the W given is for hidden 3.
  OpCall call{"LSTM", rnnInputs({}), attrs({{"hidden_size", int64_t{5}}}), kAllLstmOutputs};
  for (auto run : {std::function<void()>([&] { call.compute(); }), std::function<void()>([&] { call.infer(); })}) {
    std::string msg = opErrorOf(run);
    EXPECT_NE(msg.find("W has shape [1, 12, 2]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected [1, 20, 2]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("4*hidden_size"), std::string::npos) << msg;
  }
  // R mismatching hidden_size, initial_h with the wrong batch
  auto in = rnnInputs({});
  in[kRnnR] = waveTensor({1, 12, 4}, 0.2);
  std::string msg = opErrorOf([&] { OpCall{"LSTM", in, attrs({{"hidden_size", int64_t{H}}})}.infer(); });
  EXPECT_NE(msg.find("R has shape [1, 12, 4], expected [1, 12, 3]"), std::string::npos) << msg;
  in = rnnInputs({});
  in[kRnnInitialH] = waveTensor({1, 3, H}, 0.4);
  msg = opErrorOf([&] { OpCall{"LSTM", in, attrs({{"hidden_size", int64_t{H}}})}.compute(); });
  EXPECT_NE(msg.find("initial_h has shape [1, 3, 3], expected [1, 2, 3]"), std::string::npos) << msg;
}

TEST(LstmOp, RejectsBadAttributesAndInputs) {
  auto base = [] { return OpCall{"LSTM", rnnInputs({}), attrs({{"hidden_size", int64_t{H}}}), kAllLstmOutputs}; };
  OpCall c = base();
  c.attrs.set("direction", std::string("sideways"));
  EXPECT_NE(opErrorOf([&] { c.infer(); }).find("direction 'sideways'"), std::string::npos);
  c = base();
  c.attrs.set("activations", Strings{"Sigmoid", "Tanh"});
  EXPECT_NE(opErrorOf([&] { c.infer(); }).find("activations lists 2 functions, expected 3"), std::string::npos);
  c = base();
  c.attrs.set("activations", Strings{"Sigmoid", "Tanh", "Swish"});
  EXPECT_NE(opErrorOf([&] { c.compute(); }).find("unsupported activation function 'Swish'"), std::string::npos);
  c = base();
  c.inputs[kRnnSeqLens] = lensTensor({3, 4});
  EXPECT_NE(opErrorOf([&] { c.compute(); }).find("sequence_lens[1] = 4 is outside [0, 3]"), std::string::npos);
  c = base();
  c.outputs = {true, true, true, true};
  EXPECT_NE(opErrorOf([&] { c.infer(); }).find("at most 3"), std::string::npos);
  c = base();
  c.inputs[kRnnX] = ir::Tensor::fromVector<double>({S, B, I}, std::vector<double>(S * B * I, 0.5));
  EXPECT_NE(opErrorOf([&] { c.compute(); }).find("has type float32"), std::string::npos);  // W is float32, X is not
  c = base();
  c.inputs[kRnnX] = waveTensor({S, B}, 1.0);
  EXPECT_NE(opErrorOf([&] { c.infer(); }).find("X must have rank 3"), std::string::npos);
  c = base();
  c.attrs.set("hidden_size", int64_t{0});
  EXPECT_NE(opErrorOf([&] { c.infer(); }).find("hidden_size must be positive"), std::string::npos);
}

TEST(LstmOp, FloatOnlyComputeButInferAcceptsDouble) {
  auto dbl = [](ir::Shape s) { return ir::Tensor(ir::DType::Float64, s); };
  OpCall c{"LSTM", {dbl({S, B, I}), dbl({1, 4 * H, I}), dbl({1, 4 * H, H})}, attrs({{"hidden_size", int64_t{H}}}),
           kYAndYh};
  EXPECT_EQ(c.infer()[0], (ir::TensorType{ir::DType::Float64, {S, 1, B, H}}));
  EXPECT_NE(opErrorOf([&] { c.compute(); }).find("only float32 is supported"), std::string::npos);
}

TEST(LstmOp, FlopsCountBothProducts) {
  OpCall call{"LSTM", rnnInputs({.dirs = 2}),
              attrs({{"hidden_size", int64_t{H}}, {"direction", std::string("bidirectional")}}), kAllLstmOutputs};
  EXPECT_DOUBLE_EQ(call.flops(), 2.0 * (I + H) * 4 * H * S * B * 2);
  EXPECT_EQ(call.def().category, OpCategory::Recurrent);
}

// ---- GRU ----

TEST(GruOp, LinearBeforeResetBidirectionalMatchesTorch) {
  OpCall call{"GRU", rnnInputs({.gates = 3, .dirs = 2}),
              attrs({{"hidden_size", int64_t{H}},
                     {"direction", std::string("bidirectional")},
                     {"linear_before_reset", int64_t{1}}}),
              kYAndYh};
  auto out = call.compute();
  expectTensor(out[0], {S, 2, B, H}, kGruTorchY);
  expectTensor(out[1], {2, B, H}, kGruTorchYh);
}

TEST(GruOp, DefaultMatchesOnnxReference) {
  OpCall call{"GRU", rnnInputs({.gates = 3}), attrs({{"hidden_size", int64_t{H}}}), kYAndYh};
  auto out = call.compute();
  expectTensor(out[0], {S, 1, B, H}, kGruOnnxY);
  expectTensor(out[1], {1, B, H}, kGruOnnxYh);
}

TEST(GruOp, ReverseDirectionRunsBackwardsInTime) {
  OpCall call{"GRU", rnnInputs({.gates = 3}),
              attrs({{"hidden_size", int64_t{H}}, {"direction", std::string("reverse")}}), kYAndYh};
  auto out = call.compute();
  expectTensor(out[0], {S, 1, B, H}, kGruOnnxRevY);
  expectTensor(out[1], {1, B, H}, kGruOnnxRevYh);
}

TEST(GruOp, SequenceLensMatchPackedTorch) {
  OpCall call{"GRU", rnnInputs({.gates = 3, .dirs = 2, .lens = lensTensor({1, 3})}),
              attrs({{"hidden_size", int64_t{H}},
                     {"direction", std::string("bidirectional")},
                     {"linear_before_reset", int64_t{1}}}),
              kYAndYh};
  auto out = call.compute();
  expectTensor(out[0], {S, 2, B, H}, kGruLensY);
  expectTensor(out[1], {2, B, H}, kGruLensYh);
}

TEST(GruOp, BiasShapeErrorNamesGateCount) {
  auto in = rnnInputs({.gates = 3});
  in[kRnnB] = waveTensor({1, 12}, 0.3);
  std::string msg = opErrorOf([&] { OpCall{"GRU", in, attrs({{"hidden_size", int64_t{H}}})}.infer(); });
  EXPECT_NE(msg.find("B has shape [1, 12], expected [1, 18] ([num_directions, 2*3*hidden_size])"),
            std::string::npos)
      << msg;
}

// ---- RNN ----

TEST(RnnOp, TanhBidirectionalMatchesTorch) {
  OpCall call{"RNN", rnnInputs({.gates = 1, .dirs = 2}),
              attrs({{"hidden_size", int64_t{H}}, {"direction", std::string("bidirectional")}}), kYAndYh};
  auto out = call.compute();
  expectTensor(out[0], {S, 2, B, H}, kRnnTanhY);
  expectTensor(out[1], {2, B, H}, kRnnTanhYh);
}

TEST(RnnOp, ReluActivationMatchesTorch) {
  OpCall call{"RNN", rnnInputs({.gates = 1}),
              attrs({{"hidden_size", int64_t{H}}, {"activations", Strings{"Relu"}}}), {true}};
  auto out = call.compute();
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], {S, 1, B, H}, kRnnReluY);
}

TEST(RnnOp, ParametricActivationsPerDirectionWithClip) {
  OpCall call{"RNN", rnnInputs({.gates = 1, .dirs = 2, .bias = false, .h0 = false}),
              attrs({{"hidden_size", int64_t{H}},
                     {"direction", std::string("bidirectional")},
                     {"activations", Strings{"LeakyRelu", "Affine"}},
                     {"activation_alpha", std::vector<float>{0.2f, 0.5f}},
                     {"activation_beta", std::vector<float>{0.3f}},
                     {"clip", 0.4f}}),
              kYAndYh};
  auto out = call.compute();
  expectTensor(out[0], {S, 2, B, H}, kRnnParamY);
  expectTensor(out[1], {2, B, H}, kRnnParamYh);
}

// ---- the activation table ----

TEST(RnnActivations, ValuesAndParameterConsumption) {
  ir::Node node;
  node.attrs = attrs({{"activations", Strings{"HardSigmoid", "tanh", "LeakyRelu", "Elu", "ScaledTanh", "Softplus",
                                              "Softsign", "ThresholdedRelu", "Sigmoid"}},
                      {"activation_alpha", std::vector<float>{0.3f, 0.05f, 2.0f, 1.5f}},
                      {"activation_beta", std::vector<float>{0.6f, 0.5f}}});
  OpContext ctx(node, 17, {}, {});
  auto acts = readRnnActivations(ctx, {"Sigmoid", "Tanh", "Tanh"}, 3);
  ASSERT_EQ(acts.size(), 9u);
  // HardSigmoid(alpha .3, beta .6): clamp(.3x + .6, 0, 1)
  EXPECT_FLOAT_EQ(acts[0](1.0f), 0.9f);
  EXPECT_FLOAT_EQ(acts[0](-3.0f), 0.0f);
  EXPECT_FLOAT_EQ(acts[1](0.5f), std::tanh(0.5f));     // names are case-insensitive
  EXPECT_FLOAT_EQ(acts[2](-2.0f), -0.1f);              // LeakyRelu alpha .05
  EXPECT_FLOAT_EQ(acts[3](-1.0f), 2.0f * std::expm1(-1.0f));  // Elu alpha 2
  EXPECT_FLOAT_EQ(acts[4](1.0f), 1.5f * std::tanh(0.5f));     // ScaledTanh alpha 1.5, beta .5
  EXPECT_NEAR(acts[5](0.0f), std::log(2.0f), 1e-7f);          // Softplus
  EXPECT_FLOAT_EQ(acts[5](100.0f), 100.0f);                   // no overflow
  EXPECT_FLOAT_EQ(acts[6](3.0f), 0.75f);                      // Softsign
  EXPECT_FLOAT_EQ(acts[7](0.5f), 0.0f);                       // ThresholdedRelu, default alpha 1
  EXPECT_FLOAT_EQ(acts[7](1.5f), 1.5f);
  EXPECT_FLOAT_EQ(acts[8](0.0f), 0.5f);
}

TEST(RnnActivations, DefaultsAndOneDirectionListReusedForBoth) {
  ir::Node node;
  OpContext plain(node, 17, {}, {});
  auto acts = readRnnActivations(plain, {"Sigmoid", "Tanh"}, 2);
  ASSERT_EQ(acts.size(), 4u);
  EXPECT_EQ(acts[2].kind, RnnActivation::Kind::Sigmoid);
  EXPECT_EQ(acts[3].kind, RnnActivation::Kind::Tanh);
  node.attrs = attrs({{"activations", Strings{"Relu", "HardSigmoid"}}});
  OpContext given(node, 17, {}, {});
  acts = readRnnActivations(given, {"Sigmoid", "Tanh"}, 2);
  ASSERT_EQ(acts.size(), 4u);
  EXPECT_EQ(acts[2].kind, RnnActivation::Kind::Relu);
  EXPECT_FLOAT_EQ(acts[3](0.0f), 0.5f);  // HardSigmoid defaults alpha .2, beta .5
}

}  // namespace
}  // namespace rammer::ops

// BatchNormalization, InstanceNormalization, LRN and LayerNormalization
// against PyTorch 1.13 (torch.nn.functional.batch_norm / instance_norm /
// local_response_norm / layer_norm) and numpy where PyTorch has no match
// (BatchNorm spatial=0, LRN with an even size). Inputs are rnntest::wave
// values: X = wave(n, 2.0, 2.0); per-channel scale = wave(C, .1) + 1,
// B = wave(C, .2), mean = wave(C, .3), var = wave(C, .4, .3) + .5.
#include <gtest/gtest.h>

#include "tests/core/ops/rnn_test_util.h"

namespace rammer::ops {
namespace {

using namespace rnntest;

ir::Tensor xOf(ir::Shape s) { return waveTensor(std::move(s), 2.0, 2.0); }

// X, scale, B, mean, var for a BatchNormalization over `paramShape` statistics.
std::vector<std::optional<ir::Tensor>> bnInputs(ir::Shape x, ir::Shape paramShape) {
  return {xOf(x), waveTensor(paramShape, 0.1, 0.5, 1.0), waveTensor(paramShape, 0.2),
          waveTensor(paramShape, 0.3), waveTensor(paramShape, 0.4, 0.3, 0.5)};
}

// ---- reference values (generated with /usr/bin/python3, torch 1.13) ----

// batch_norm(training=False, eps=1e-3) on [2, 3] and [2, 3, 2, 2]
const std::vector<float> kBn2d = {2.331135f, 1.064404f, -1.194716f, -2.284045f, -3.348603f, -2.709293f};
const std::vector<float> kBn4d = {2.331135f, 1.043702f, -0.7807074f, -2.284045f, -3.348603f, -2.447664f, -0.5180576f, 1.532692f, 2.923126f, 2.701836f, 1.052448f, -1.249306f, -2.309556f, -2.754962f, -1.950773f, -0.275212f, 1.574957f, 2.752757f, 2.513385f, 0.9694218f, -1.303638f, -3.152228f, -3.675659f, -2.627753f};
// spatial=0 on [2, 2, 2] with [2, 2] statistics, eps 1e-5 (numpy)
const std::vector<float> kBnSpatial0 = {2.332926f, 1.064838f, -1.195774f, -2.99027f, -2.761561f, -2.449494f, -0.6149855f, 1.768241f};
// instance_norm on [2, 3, 4] (eps 1e-5) and [1, 2, 2, 3] (eps 1e-2)
const std::vector<float> kInorm3d = {1.447226f, 0.6772097f, -0.4139738f, -1.313123f, -1.166205f, -0.5143619f, 0.8817365f, 2.365484f, 1.905829f, 1.707155f, 0.2263371f, -1.840174f, -0.4458518f, -0.9445454f, -0.04414391f, 1.831879f, -0.322668f, 1.905023f, 1.452275f, -1.467976f, 2.85547f, -0.2860329f, -1.175554f, 0.6052632f};
const std::vector<float> kInorm4d = {1.833375f, 1.106144f, 0.07559232f, -0.773596f, -1.042035f, -0.6034722f, -1.067395f, 0.8602381f, 1.995145f, 1.803563f, 0.3755938f, -1.617164f};
// local_response_norm(size 3, alpha .02, beta .75, k 2) on [1, 5, 2, 2]
const std::vector<float> kLrn3 = {1.06208f, 0.5048121f, -0.3036721f, -0.9634424f, -1.153012f, -0.8267101f, -0.09857202f, 0.6805612f, 1.121852f, 1.048829f, 0.4868953f, -0.3218518f, -0.9654729f, -1.151237f, -0.8129732f, -0.07868511f, 0.6968917f, 1.134056f, 1.050655f, 0.4710448f};
// LRN size 4, alpha .03, beta .6, bias 1.5: ONNX's window c-1 .. c+2 (numpy, the
// formula of ONNX's LRN test). PyTorch centres even windows differently (c-2 .. c+1).
const std::vector<float> kLrn4 = {1.380702f, 0.658439f, -0.399556f, -1.266827f, -1.500935f, -1.074646f, -0.1291754f, 0.895473f, 1.466233f, 1.362311f, 0.635193f, -0.4232595f, -1.268327f, -1.510296f, -1.069008f, -0.1037067f, 0.9170809f, 1.489897f, 1.38198f, 0.6209262f};
// layer_norm over the last dim of [2, 3, 4]: Scale wave(4, .1) + 1, B wave(4, .2), eps 1e-5
const std::vector<float> kLn1 = {1.447226f, 1.139481f, -0.2329568f, -1.51629f, -1.104506f, -0.5143617f, 1.040383f, 2.412875f, 1.084308f, 1.486194f, 0.226337f, -1.819569f, -0.4458517f, -0.9592026f, 0.2949724f, 2.690106f, -0.4526642f, 1.905023f, 1.66974f, -1.549159f, 1.74956f, -0.3207152f, -1.175554f, 0.4716788f};
// layer_norm over dims 1.. of [2, 3, 4]: Scale wave(12, .1) + 1 as [3, 4], no B, eps 1e-3
const std::vector<float> kLn2 = {1.27476f, 0.6805953f, -0.7640392f, -1.885377f, -1.797998f, -0.9156229f, -0.1379504f, 0.3771246f, 0.942716f, 1.273747f, 0.652685f, -0.8002958f, -0.9077803f, -1.491998f, -1.013947f, 0.2834916f, 1.258433f, 1.289658f, 0.838855f, 0.4426705f, -0.07858755f, -0.9288133f, -1.494756f, -0.9886606f};
const std::vector<float> kLn2Mean = {0.1778256f, -0.4209386f};
const std::vector<float> kLn2InvStd = {0.7399904f, 0.7002603f};

// ---- BatchNormalization ----

TEST(BatchNormOp, TwoDimensionalMatchesTorch) {
  OpCall call{"BatchNormalization", bnInputs({2, 3}, {3}), attrs({{"epsilon", 1e-3f}})};
  auto out = call.compute();
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], {2, 3}, kBn2d);
  EXPECT_EQ(call.def().category, OpCategory::Normalization);
}

TEST(BatchNormOp, FourDimensionalMatchesTorch) {
  OpCall call{"BatchNormalization", bnInputs({2, 3, 2, 2}, {3}), attrs({{"epsilon", 1e-3f}})};
  expectTensor(call.compute()[0], {2, 3, 2, 2}, kBn4d);
  EXPECT_EQ(call.infer()[0], (ir::TensorType{ir::DType::Float32, {2, 3, 2, 2}}));
  EXPECT_DOUBLE_EQ(call.flops(), 2.0 * 24);
}

TEST(BatchNormOp, OldOpsetAttributesAreAccepted) {
  OpCall call{"BatchNormalization", bnInputs({2, 3, 2, 2}, {3}),
              attrs({{"epsilon", 1e-3f}, {"spatial", int64_t{1}}, {"is_test", int64_t{1}}, {"momentum", 0.9f}}),
              {true}, 6};
  expectTensor(call.compute()[0], {2, 3, 2, 2}, kBn4d);
}

TEST(BatchNormOp, SpatialZeroUsesPerActivationStatistics) {
  OpCall call{"BatchNormalization", bnInputs({2, 2, 2}, {2, 2}), attrs({{"spatial", int64_t{0}}}), {true}, 7};
  expectTensor(call.compute()[0], {2, 2, 2}, kBnSpatial0);
  // From opset 9 on the statistics are per channel only: [2, 2] no longer fits.
  call.opset = 9;
  std::string msg = opErrorOf([&] { call.infer(); });
  EXPECT_NE(msg.find("scale has shape [2, 2], expected 2 elements"), std::string::npos) << msg;
}

TEST(BatchNormOp, Float64IsComputedInDouble) {
  auto in = bnInputs({2, 3}, {3});
  const std::vector<float> xf = wave(6, 2.0, 2.0);
  in[0] = ir::Tensor::fromVector<double>({2, 3}, std::vector<double>(xf.begin(), xf.end()));
  OpCall call{"BatchNormalization", in, attrs({{"epsilon", 1e-3f}})};
  auto y = call.compute()[0];
  ASSERT_EQ(y.dtype(), ir::DType::Float64);
  for (int64_t i = 0; i < 6; ++i) EXPECT_NEAR(y.data<double>()[i], kBn2d[i], 1e-5);
}

TEST(BatchNormOp, TrainingModeIsRejectedClearly) {
  OpCall extra{"BatchNormalization", bnInputs({2, 3}, {3}), {}, {true, true, true}, 9};
  for (auto run : {std::function<void()>([&] { extra.infer(); }), std::function<void()>([&] { extra.compute(); })}) {
    std::string msg = opErrorOf(run);
    EXPECT_NE(msg.find("training-mode BatchNormalization is not supported"), std::string::npos) << msg;
    EXPECT_NE(msg.find("output 1"), std::string::npos) << msg;
  }
  // Omitted training outputs are fine.
  OpCall omitted{"BatchNormalization", bnInputs({2, 3}, {3}), attrs({{"epsilon", 1e-3f}}), {true, false, false}, 9};
  auto out = omitted.compute();
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], {2, 3}, kBn2d);
  EXPECT_TRUE(out[1].empty());

  OpCall training{"BatchNormalization", bnInputs({2, 3}, {3}), attrs({{"training_mode", int64_t{1}}}), {true}, 15};
  EXPECT_NE(opErrorOf([&] { training.infer(); }).find("training_mode=1"), std::string::npos);
}

TEST(BatchNormOp, ParameterShapeErrorsNameTheInput) {
  auto in = bnInputs({2, 3, 2, 2}, {3});
  in[4] = waveTensor({4}, 0.4);
  std::string msg = opErrorOf([&] { OpCall{"BatchNormalization", in}.compute(); });
  EXPECT_NE(msg.find("input_var has shape [4], expected 3 elements (the channel count of X)"), std::string::npos)
      << msg;
  in = bnInputs({2, 3}, {3});
  in.pop_back();
  EXPECT_NE(opErrorOf([&] { OpCall{"BatchNormalization", in}.infer(); }).find("expects 5 inputs, got 4"),
            std::string::npos);
  in = bnInputs({6}, {3});
  EXPECT_NE(opErrorOf([&] { OpCall{"BatchNormalization", in}.infer(); }).find("rank >= 2"), std::string::npos);
}

TEST(BatchNormOp, InferKeepsUnknownDims) {
  std::vector<ir::TensorType> types{{ir::DType::Float32, {-1, 3, -1, -1}}};
  for (int i = 0; i < 4; ++i) types.push_back({ir::DType::Float32, {3}});
  auto out = OpCall{"BatchNormalization", {}}.infer(types);
  EXPECT_EQ(out[0], types[0]);
  types[0] = {ir::DType::Float32, {}, false};
  EXPECT_FALSE((OpCall{"BatchNormalization", {}}.infer(types)[0].rankKnown));
}

TEST(BatchNormOp, Float16InfersButIsNotComputed) {
  std::vector<std::optional<ir::Tensor>> in{ir::Tensor(ir::DType::Float16, {2, 3})};
  for (int i = 0; i < 4; ++i) in.push_back(ir::Tensor(ir::DType::Float32, {3}));
  OpCall call{"BatchNormalization", in};
  EXPECT_EQ(call.infer()[0], (ir::TensorType{ir::DType::Float16, {2, 3}}));
  EXPECT_NE(opErrorOf([&] { call.compute(); }).find("only float32 and float64 are computed"), std::string::npos);
  in[1] = ir::Tensor::fromVector<int64_t>({3}, {1, 1, 1});
  EXPECT_NE(opErrorOf([&] { OpCall{"BatchNormalization", in}.infer(); }).find("input 1 has type int64"),
            std::string::npos);
}

// ---- InstanceNormalization ----

TEST(InstanceNormOp, MatchesTorch) {
  OpCall call3{"InstanceNormalization", {xOf({2, 3, 4}), waveTensor({3}, 0.1, 0.5, 1.0), waveTensor({3}, 0.2)}};
  expectTensor(call3.compute()[0], {2, 3, 4}, kInorm3d, 2e-5f);
  OpCall call4{"InstanceNormalization", {xOf({1, 2, 2, 3}), waveTensor({2}, 0.1, 0.5, 1.0), waveTensor({2}, 0.2)},
               attrs({{"epsilon", 1e-2f}})};
  expectTensor(call4.compute()[0], {1, 2, 2, 3}, kInorm4d, 2e-5f);
  EXPECT_EQ(call4.infer()[0].shape, (ir::Shape{1, 2, 2, 3}));
  EXPECT_DOUBLE_EQ(call4.flops(), 5.0 * 12);
}

TEST(InstanceNormOp, RejectsBadShapes) {
  std::string msg = opErrorOf([] {
    OpCall{"InstanceNormalization", {xOf({2, 3, 4}), waveTensor({2}, 0.1), waveTensor({3}, 0.2)}}.infer();
  });
  EXPECT_NE(msg.find("scale has shape [2], expected 3 elements"), std::string::npos) << msg;
  msg = opErrorOf([] { OpCall{"InstanceNormalization", {xOf({2, 3}), waveTensor({3}, 0.1), waveTensor({3}, 0.2)}}.infer(); });
  EXPECT_NE(msg.find("rank >= 3"), std::string::npos) << msg;
}

// ---- LRN ----

TEST(LrnOp, OddSizeMatchesTorch) {
  OpCall call{"LRN", {xOf({1, 5, 2, 2})},
              attrs({{"size", int64_t{3}}, {"alpha", 0.02f}, {"beta", 0.75f}, {"bias", 2.0f}})};
  expectTensor(call.compute()[0], {1, 5, 2, 2}, kLrn3);
  EXPECT_DOUBLE_EQ(call.flops(), (2.0 * 3 + 3.0) * 20);
}

TEST(LrnOp, EvenSizeUsesOnnxWindow) {
  OpCall call{"LRN", {xOf({1, 5, 2, 2})},
              attrs({{"size", int64_t{4}}, {"alpha", 0.03f}, {"beta", 0.6f}, {"bias", 1.5f}})};
  expectTensor(call.compute()[0], {1, 5, 2, 2}, kLrn4);
}

TEST(LrnOp, DefaultsAndSizeRequired) {
  // alpha 1e-4, beta .75, bias 1 with size 1: y = x / (1 + 1e-4 x^2)^0.75
  OpCall call{"LRN", {f32({1, 2, 1}, {2.0f, -10.0f})}, attrs({{"size", int64_t{1}}})};
  auto y = call.compute()[0];
  EXPECT_NEAR(y.data<float>()[0], 2.0 / std::pow(1.0 + 1e-4 * 4.0, 0.75), 1e-6);
  EXPECT_NEAR(y.data<float>()[1], -10.0 / std::pow(1.0 + 1e-4 * 100.0, 0.75), 1e-5);
  EXPECT_NE(opErrorOf([] { OpCall{"LRN", {xOf({1, 5, 2, 2})}}.infer(); }).find("size attribute is required"),
            std::string::npos);
  EXPECT_NE(opErrorOf([] { OpCall{"LRN", {xOf({1, 5, 2, 2})}, attrs({{"size", int64_t{0}}})}.compute(); })
                .find("size must be positive"),
            std::string::npos);
}

// ---- LayerNormalization ----

TEST(LayerNormOp, LastAxisMatchesTorch) {
  OpCall call{"LayerNormalization", {xOf({2, 3, 4}), waveTensor({4}, 0.1, 0.5, 1.0), waveTensor({4}, 0.2)}};
  auto out = call.compute();
  ASSERT_EQ(out.size(), 1u);
  expectTensor(out[0], {2, 3, 4}, kLn1);
}

TEST(LayerNormOp, AxisOneWithStatisticsOutputs) {
  OpCall call{"LayerNormalization",
              {xOf({2, 3, 4}), waveTensor({3, 4}, 0.1, 0.5, 1.0)},
              attrs({{"axis", int64_t{1}}, {"epsilon", 1e-3f}}),
              {true, true, true}};
  auto out = call.compute();
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], {2, 3, 4}, kLn2);
  expectTensor(out[1], {2, 1, 1}, kLn2Mean);
  expectTensor(out[2], {2, 1, 1}, kLn2InvStd);
  auto types = call.infer();
  EXPECT_EQ(types[1], (ir::TensorType{ir::DType::Float32, {2, 1, 1}}));
  // Scale [4] broadcasts over the normalized shape [3, 4] too.
  call.inputs[1] = f32({4}, {1.0f, 1.0f, 1.0f, 1.0f});
  auto plain = call.compute()[0];
  const std::vector<float> x = wave(24, 2.0, 2.0);
  EXPECT_NEAR(plain.data<float>()[5], (x[5] - kLn2Mean[0]) * kLn2InvStd[0], 1e-5f);
}

TEST(LayerNormOp, RejectsScaleThatDoesNotBroadcast) {
  std::string msg = opErrorOf([] {
    OpCall{"LayerNormalization", {xOf({2, 3, 4}), waveTensor({3}, 0.1)}}.infer();
  });
  EXPECT_NE(msg.find("Scale has shape [3], which does not broadcast to the normalized shape [4]"), std::string::npos)
      << msg;
  msg = opErrorOf([] { OpCall{"LayerNormalization", {xOf({2, 3}), waveTensor({3}, 0.1)}, attrs({{"axis", int64_t{2}}})}.infer(); });
  EXPECT_NE(msg.find("axis 2 is out of range"), std::string::npos) << msg;
}

}  // namespace
}  // namespace rammer::ops

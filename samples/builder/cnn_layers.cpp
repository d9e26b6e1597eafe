#include "samples/builder/cnn_layers.h"

#include <algorithm>
#include <cmath>

namespace rammer::samples {

Pads tfSamePads(int64_t inH, int64_t inW, int64_t kernel, int64_t stride) {
  auto split = [&](int64_t in, int64_t& before, int64_t& after) {
    const int64_t out = (in + stride - 1) / stride;
    const int64_t total = std::max<int64_t>((out - 1) * stride + kernel - in, 0);
    before = total / 2;
    after = total - before;
  };
  Pads p;
  split(inH, p.top, p.bottom);
  split(inW, p.left, p.right);
  return p;
}

ir::ValueId conv(ModelBuilder& b, const std::string& name, ir::ValueId x, const ConvSpec& s) {
  const int64_t in = b.channels(x);
  const int64_t perGroup = in / s.groups;
  const int64_t fanIn = perGroup * s.kernelH * s.kernelW;
  std::vector<ir::ValueId> inputs{x, b.constant(name + ".weight",
                                                b.rng().heUniform({s.out, perGroup, s.kernelH, s.kernelW}, fanIn))};
  if (s.bias)
    inputs.push_back(b.constant(name + ".bias",
                                b.rng().uniformTensor({s.out}, 1.0f / std::sqrt(static_cast<float>(fanIn)))));
  return b.op("Conv", name, std::move(inputs),
              attrs({{"kernel_shape", std::vector<int64_t>{s.kernelH, s.kernelW}},
                     {"strides", std::vector<int64_t>{s.strideH, s.strideW}},
                     {"pads", s.pads.onnx()},
                     {"dilations", std::vector<int64_t>{1, 1}},
                     {"group", s.groups}}));
}

ir::ValueId batchNorm(ModelBuilder& b, const std::string& name, ir::ValueId x, float epsilon) {
  // Statistics near the identity keep activations in range through deep
  // stacks while still making every channel different.
  const int64_t c = b.channels(x);
  WeightRng& r = b.rng();
  const ir::ValueId scale = b.constant(name + ".scale", r.rangeTensor({c}, 0.8f, 1.2f));
  const ir::ValueId bias = b.constant(name + ".bias", r.rangeTensor({c}, -0.1f, 0.1f));
  const ir::ValueId mean = b.constant(name + ".mean", r.rangeTensor({c}, -0.1f, 0.1f));
  const ir::ValueId var = b.constant(name + ".var", r.rangeTensor({c}, 0.8f, 1.2f));
  return b.op("BatchNormalization", name, {x, scale, bias, mean, var}, attrs({{"epsilon", epsilon}}));
}

ir::ValueId relu(ModelBuilder& b, const std::string& name, ir::ValueId x) { return b.op("Relu", name, {x}); }

ir::ValueId convBn(ModelBuilder& b, const std::string& name, ir::ValueId x, const ConvSpec& spec, float epsilon) {
  return batchNorm(b, name + ".bn", conv(b, name + ".conv", x, spec), epsilon);
}

ir::ValueId convBnRelu(ModelBuilder& b, const std::string& name, ir::ValueId x, const ConvSpec& spec,
                       float epsilon) {
  return relu(b, name + ".relu", convBn(b, name, x, spec, epsilon));
}

ir::ValueId maxPool(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t kernel, int64_t stride,
                    Pads pads, bool ceilMode) {
  ir::Attributes a = attrs({{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                            {"strides", std::vector<int64_t>{stride, stride}},
                            {"pads", pads.onnx()}});
  if (ceilMode) a.set("ceil_mode", int64_t{1});
  return b.op("MaxPool", name, {x}, std::move(a));
}

ir::ValueId avgPool(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t kernel, int64_t stride,
                    Pads pads, bool countIncludePad) {
  return b.op("AveragePool", name, {x},
              attrs({{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
                     {"strides", std::vector<int64_t>{stride, stride}},
                     {"pads", pads.onnx()},
                     {"count_include_pad", int64_t{countIncludePad ? 1 : 0}}}));
}

ir::ValueId globalAvgPool(ModelBuilder& b, const std::string& name, ir::ValueId x) {
  return b.op("GlobalAveragePool", name, {x});
}

ir::ValueId flatten(ModelBuilder& b, const std::string& name, ir::ValueId x) {
  return b.op("Flatten", name, {x}, attrs({{"axis", int64_t{1}}}));
}

ir::ValueId dense(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out) {
  const int64_t in = b.shape(x).at(1);
  const ir::ValueId w = b.constant(name + ".weight", b.rng().heUniform({out, in}, in));
  const ir::ValueId bias =
      b.constant(name + ".bias", b.rng().uniformTensor({out}, 1.0f / std::sqrt(static_cast<float>(in))));
  return b.op("Gemm", name, {x, w, bias}, attrs({{"transB", int64_t{1}}}));
}

ir::ValueId add(ModelBuilder& b, const std::string& name, ir::ValueId x, ir::ValueId y) {
  return b.op("Add", name, {x, y});
}

ir::ValueId concat(ModelBuilder& b, const std::string& name, std::vector<ir::ValueId> xs, int64_t axis) {
  return b.op("Concat", name, std::move(xs), attrs({{"axis", axis}}));
}

}  // namespace rammer::samples

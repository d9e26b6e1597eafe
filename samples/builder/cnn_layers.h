#pragma once
// Convolutional-network layers on NCHW float32 tensors, as ONNX nodes with
// seeded weights. Each layer names its node `name` and its weights
// `name.weight`, `name.bias`, ...; composite layers use `name.conv` etc.
#include <cstdint>
#include <string>
#include <vector>

#include "samples/builder/model_builder.h"

namespace rammer::samples {

struct Pads {
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  static Pads all(int64_t p) { return {p, p, p, p}; }
  std::vector<int64_t> onnx() const { return {top, left, bottom, right}; }
};

// TensorFlow's 'SAME' padding for a square window: output = ceil(in / stride),
// the odd pixel of padding goes to the bottom/right.
Pads tfSamePads(int64_t inH, int64_t inW, int64_t kernel, int64_t stride);

struct ConvSpec {
  int64_t out = 0;
  int64_t kernelH = 1, kernelW = 1;
  int64_t strideH = 1, strideW = 1;
  Pads pads;
  int64_t groups = 1;
  bool bias = false;

  // Square kernel, stride and symmetric padding.
  static ConvSpec square(int64_t out, int64_t kernel, int64_t stride = 1, int64_t pad = 0) {
    return ConvSpec{out, kernel, kernel, stride, stride, Pads::all(pad)};
  }
};

// He-uniform weights; a PyTorch-style uniform bias when asked for.
ir::ValueId conv(ModelBuilder& b, const std::string& name, ir::ValueId x, const ConvSpec& spec);
// Inference-mode batch norm with randomised statistics near identity.
ir::ValueId batchNorm(ModelBuilder& b, const std::string& name, ir::ValueId x, float epsilon = 1e-5f);
ir::ValueId relu(ModelBuilder& b, const std::string& name, ir::ValueId x);
// conv -> BN -> ReLU, nodes `name.conv`, `name.bn`, `name.relu`.
ir::ValueId convBnRelu(ModelBuilder& b, const std::string& name, ir::ValueId x, const ConvSpec& spec,
                       float epsilon = 1e-5f);
// conv -> BN, nodes `name.conv`, `name.bn`.
ir::ValueId convBn(ModelBuilder& b, const std::string& name, ir::ValueId x, const ConvSpec& spec,
                   float epsilon = 1e-5f);

// ceilMode writes ceil_mode = 1 (PyTorch's MaxPool2d(ceil_mode=True)); the
// attribute is left out otherwise.
ir::ValueId maxPool(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t kernel, int64_t stride,
                    Pads pads = {}, bool ceilMode = false);
ir::ValueId avgPool(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t kernel, int64_t stride,
                    Pads pads = {}, bool countIncludePad = false);
ir::ValueId globalAvgPool(ModelBuilder& b, const std::string& name, ir::ValueId x);
ir::ValueId flatten(ModelBuilder& b, const std::string& name, ir::ValueId x);
// Fully connected layer on [batch, in]: Gemm with weight [out, in] (transB).
ir::ValueId dense(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out);

ir::ValueId add(ModelBuilder& b, const std::string& name, ir::ValueId x, ir::ValueId y);
ir::ValueId concat(ModelBuilder& b, const std::string& name, std::vector<ir::ValueId> xs, int64_t axis = 1);

}  // namespace rammer::samples

#pragma once
// The activation functions ONNX recurrent ops (RNN, GRU, LSTM) accept through
// their `activations`, `activation_alpha` and `activation_beta` attributes.
#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/op_context.h"

namespace rammer::ops {

struct RnnActivation {
  enum class Kind { Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign,
                    Softplus };
  Kind kind = Kind::Tanh;
  float alpha = 0.0f;
  float beta = 0.0f;

  float operator()(float x) const;
  // In place over n values (the switch is hoisted out of the loop).
  void apply(float* x, int64_t n) const;
};

// Reads the activation attributes of a recurrent node. `defaults` are the
// per-direction functions (LSTM: f, g, h). The result holds
// defaults.size() * numDirections entries, forward direction first. A list
// naming only one direction's functions is reused for both directions of a
// bidirectional node. Alpha/beta values are consumed in order, only by the
// functions that take them (missing ones get the ONNX operator defaults).
std::vector<RnnActivation> readRnnActivations(const OpContext& ctx, const std::vector<std::string>& defaults,
                                              int64_t numDirections);

}  // namespace rammer::ops

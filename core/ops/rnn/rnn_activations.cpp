#include "core/ops/rnn/rnn_activations.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace rammer::ops {

namespace {

using Kind = RnnActivation::Kind;

struct KindInfo {
  const char* name;  // lower case: ONNX spells them in CamelCase, ONNX Runtime accepts any case
  Kind kind;
  bool usesAlpha, usesBeta;
  float alpha, beta;  // defaults of the corresponding ONNX operators
};

constexpr KindInfo kKinds[] = {
    {"relu", Kind::Relu, false, false, 0.0f, 0.0f},
    {"tanh", Kind::Tanh, false, false, 0.0f, 0.0f},
    {"sigmoid", Kind::Sigmoid, false, false, 0.0f, 0.0f},
    {"affine", Kind::Affine, true, true, 1.0f, 0.0f},
    {"leakyrelu", Kind::LeakyRelu, true, false, 0.01f, 0.0f},
    {"thresholdedrelu", Kind::ThresholdedRelu, true, false, 1.0f, 0.0f},
    {"scaledtanh", Kind::ScaledTanh, true, true, 1.0f, 1.0f},
    {"hardsigmoid", Kind::HardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", Kind::Elu, true, false, 1.0f, 0.0f},
    {"softsign", Kind::Softsign, false, false, 0.0f, 0.0f},
    {"softplus", Kind::Softplus, false, false, 0.0f, 0.0f},
};

template <class F>
void applyEach(float* x, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) x[i] = f(x[i]);
}

}  // namespace

float RnnActivation::operator()(float x) const {
  apply(&x, 1);
  return x;
}

void RnnActivation::apply(float* x, int64_t n) const {
  const float a = alpha, b = beta;
  switch (kind) {
    case Kind::Relu: return applyEach(x, n, [](float v) { return v > 0.0f ? v : 0.0f; });
    case Kind::Tanh: return applyEach(x, n, [](float v) { return std::tanh(v); });
    case Kind::Sigmoid: return applyEach(x, n, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
    case Kind::Affine: return applyEach(x, n, [a, b](float v) { return a * v + b; });
    case Kind::LeakyRelu: return applyEach(x, n, [a](float v) { return v >= 0.0f ? v : a * v; });
    case Kind::ThresholdedRelu: return applyEach(x, n, [a](float v) { return v >= a ? v : 0.0f; });
    case Kind::ScaledTanh: return applyEach(x, n, [a, b](float v) { return a * std::tanh(b * v); });
    case Kind::HardSigmoid:
      return applyEach(x, n, [a, b](float v) { return std::clamp(a * v + b, 0.0f, 1.0f); });
    case Kind::Elu: return applyEach(x, n, [a](float v) { return v >= 0.0f ? v : a * std::expm1(v); });
    case Kind::Softsign: return applyEach(x, n, [](float v) { return v / (1.0f + std::fabs(v)); });
    case Kind::Softplus:
      // log(1 + e^x) without overflowing for large x.
      return applyEach(x, n, [](float v) { return std::max(v, 0.0f) + std::log1p(std::exp(-std::fabs(v))); });
  }
}

std::vector<RnnActivation> readRnnActivations(const OpContext& ctx, const std::vector<std::string>& defaults,
                                              int64_t numDirections) {
  const size_t perDir = defaults.size();
  std::vector<std::string> names = ctx.attrs().getStrings("activations");
  if (names.empty()) {
    for (int64_t d = 0; d < numDirections; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() == perDir && numDirections == 2) {
    const std::vector<std::string> oneDirection = names;  // inserting a range of itself is not allowed
    names.insert(names.end(), oneDirection.begin(), oneDirection.end());
  } else if (names.size() != perDir * static_cast<size_t>(numDirections)) {
    ctx.fail("activations lists " + std::to_string(names.size()) + " functions, expected " +
             std::to_string(perDir * static_cast<size_t>(numDirections)) + " (" + std::to_string(perDir) +
             " per direction)");
  }
  const std::vector<float> alphas = ctx.attrs().getFloats("activation_alpha");
  const std::vector<float> betas = ctx.attrs().getFloats("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;

  std::vector<RnnActivation> out;
  for (const std::string& name : names) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    const KindInfo* info = nullptr;
    for (const KindInfo& k : kKinds)
      if (lower == k.name) info = &k;
    if (!info) ctx.fail("unsupported activation function '" + name + "'");
    RnnActivation act{info->kind, info->alpha, info->beta};
    if (info->usesAlpha && nextAlpha < alphas.size()) act.alpha = alphas[nextAlpha++];
    if (info->usesBeta && nextBeta < betas.size()) act.beta = betas[nextBeta++];
    out.push_back(act);
  }
  return out;
}

}  // namespace rammer::ops

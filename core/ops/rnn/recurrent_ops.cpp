// RNN, GRU and LSTM (ONNX semantics, float32). The time loop lives in
// rnn_cells.cpp; this file binds node inputs and outputs to it.
#include <algorithm>
#include <array>
#include <span>
#include <string>

#include "core/ops/op_registry.h"
#include "core/ops/rnn/rnn_activations.h"
#include "core/ops/rnn/rnn_cells.h"
#include "core/ops/rnn/rnn_spec.h"

namespace rammer::ops {

namespace {

std::vector<std::string> defaultActivations(RnnKind kind) {
  switch (kind) {
    case RnnKind::Rnn: return {"Tanh"};
    case RnnKind::Gru: return {"Sigmoid", "Tanh"};
    case RnnKind::Lstm: return {"Sigmoid", "Tanh", "Tanh"};
  }
  return {};
}

// Batch lengths from sequence_lens (all `seq` when absent), range-checked.
std::vector<int64_t> readLengths(const OpContext& ctx, const RnnSpec& s, const ir::Tensor* lens) {
  if (!lens) return std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(s.batch, 0)), s.seq);
  std::vector<int64_t> out = lens->toInt64s();
  for (size_t b = 0; b < out.size(); ++b)
    if (out[b] < 0 || (s.seq >= 0 && out[b] > s.seq))
      ctx.fail("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(out[b]) + " is outside [0, " +
               std::to_string(s.seq) + "]");
  return out;
}

// Copies a row-major float array of `dims` into the order `perm` (out dim k = in dim perm[k]).
template <size_t N>
std::vector<float> permute(const float* src, const std::array<int64_t, N>& dims, const std::array<int, N>& perm) {
  std::array<int64_t, N> inStride{}, outDims{};
  int64_t total = 1;
  for (size_t k = N; k-- > 0;) {
    inStride[k] = total;
    total *= dims[k];
  }
  for (size_t k = 0; k < N; ++k) outDims[k] = dims[perm[k]];
  std::vector<float> out(static_cast<size_t>(total));
  std::array<int64_t, N> idx{};  // index in the output
  for (int64_t o = 0; o < total; ++o) {
    int64_t in = 0;
    for (size_t k = 0; k < N; ++k) in += idx[k] * inStride[perm[k]];
    out[o] = src[in];
    for (size_t k = N; k-- > 0;) {
      if (++idx[k] < outDims[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

std::vector<ir::TensorType> inferRecurrent(const OpContext& ctx, RnnKind kind) {
  RnnSpec s = readRnnSpec(ctx, kind);
  readRnnActivations(ctx, defaultActivations(kind), s.numDirections);
  if (ctx.has(kRnnSeqLens)) readLengths(ctx, s, ctx.value(kRnnSeqLens));
  return inferRnnOutputs(ctx, s);
}

std::vector<ir::Tensor> computeRecurrent(const OpContext& ctx, RnnKind kind) {
  RnnSpec s = readRnnSpec(ctx, kind);
  if (ctx.dtype(kRnnX) != ir::DType::Float32)
    ctx.fail("only float32 is supported, X is " + std::string(ir::dtypeName(ctx.dtype(kRnnX))));
  const std::vector<std::string> defaults = defaultActivations(kind);
  const std::vector<RnnActivation> acts = readRnnActivations(ctx, defaults, s.numDirections);
  const std::vector<int64_t> lens = readLengths(ctx, s, ctx.has(kRnnSeqLens) ? &ctx.tensor(kRnnSeqLens) : nullptr);
  const int64_t S = s.seq, B = s.batch, I = s.input, H = s.hidden, GH = s.gates * H, nd = s.numDirections;
  const bool batchFirst = s.layout == 1;

  // Work in layout 0: [seq, batch, ...] inputs, [num_directions, batch, hidden] states.
  std::vector<float> xBuf, hBuf, cBuf;
  const float* X = ctx.tensor(kRnnX).data<float>();
  if (batchFirst) X = (xBuf = permute<3>(X, {B, S, I}, {1, 0, 2})).data();
  auto state = [&](size_t slot, std::vector<float>& buf) -> const float* {
    if (!ctx.has(slot)) return nullptr;
    const float* p = ctx.tensor(slot).data<float>();
    return batchFirst ? (buf = permute<3>(p, {B, nd, H}, {1, 0, 2})).data() : p;
  };
  const float* h0 = state(kRnnInitialH, hBuf);
  const float* c0 = kind == RnnKind::Lstm ? state(kRnnInitialC, cBuf) : nullptr;
  const float* W = ctx.tensor(kRnnW).data<float>();
  const float* R = ctx.tensor(kRnnR).data<float>();
  const float* bias = ctx.has(kRnnB) ? ctx.tensor(kRnnB).data<float>() : nullptr;
  const float* P = kind == RnnKind::Lstm && ctx.has(kRnnP) ? ctx.tensor(kRnnP).data<float>() : nullptr;

  const bool wantY = ctx.hasOutput(0);
  std::vector<float> Y(wantY ? static_cast<size_t>(S * nd * B * H) : 0, 0.0f);
  std::vector<float> Yh(static_cast<size_t>(nd * B * H)), Yc(kind == RnnKind::Lstm ? Yh.size() : 0);
  for (int64_t d = 0; d < nd; ++d) {
    RnnDirectionParams p;
    p.W = W + d * GH * I;
    p.R = R + d * GH * H;
    if (bias) {
      p.Wb = bias + d * 2 * GH;
      p.Rb = p.Wb + GH;
    }
    if (P) p.P = P + d * 3 * H;
    if (h0) p.h0 = h0 + d * B * H;
    if (c0) p.c0 = c0 + d * B * H;
    p.activations = acts.data() + d * static_cast<int64_t>(defaults.size());
    RnnDirectionOutputs out;
    out.Y = wantY ? Y.data() : nullptr;
    out.Yh = Yh.data() + d * B * H;
    if (kind == RnnKind::Lstm) out.Yc = Yc.data() + d * B * H;
    const bool reverse = nd == 2 ? d == 1 : s.reverse;
    runRnnDirection(s, d, reverse, X, lens, p, out);
  }

  std::vector<ir::Tensor> result(ctx.numOutputs());
  auto emit = [&](size_t slot, std::vector<float>& data, ir::Shape shape) {
    if (!ctx.hasOutput(slot)) return;
    result[slot] = ir::Tensor::fromVector<float>(std::move(shape), data);
  };
  if (batchFirst) {
    if (wantY) Y = permute<4>(Y.data(), {S, nd, B, H}, {2, 0, 1, 3});
    Yh = permute<3>(Yh.data(), {nd, B, H}, {1, 0, 2});
    if (!Yc.empty()) Yc = permute<3>(Yc.data(), {nd, B, H}, {1, 0, 2});
    emit(0, Y, {B, S, nd, H});
    emit(1, Yh, {B, nd, H});
    emit(2, Yc, {B, nd, H});
  } else {
    emit(0, Y, {S, nd, B, H});
    emit(1, Yh, {nd, B, H});
    emit(2, Yc, {nd, B, H});
  }
  return result;
}

void addRecurrent(OpRegistry& r, const char* type, RnnKind kind) {
  OpDef def;
  def.type = type;
  def.category = OpCategory::Recurrent;
  def.infer = [kind](const OpContext& ctx) { return inferRecurrent(ctx, kind); };
  def.compute = [kind](const OpContext& ctx) { return computeRecurrent(ctx, kind); };
  def.flops = [kind](const OpContext& ctx, std::span<const ir::TensorType>) {
    return rnnFlops(readRnnSpec(ctx, kind));
  };
  r.add(std::move(def));
}

}  // namespace

void registerRecurrentOps(OpRegistry& r) {
  addRecurrent(r, "RNN", RnnKind::Rnn);
  addRecurrent(r, "GRU", RnnKind::Gru);
  addRecurrent(r, "LSTM", RnnKind::Lstm);
}

}  // namespace rammer::ops

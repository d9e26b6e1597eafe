#include "core/ops/rnn/rnn_cells.h"

#include <algorithm>
#include <cstring>

#include "core/ops/math/gemm.h"

namespace rammer::ops {

namespace {

// ONNX applies `clip` to the input of every activation.
void clipValues(float* x, int64_t n, const std::optional<float>& clip) {
  if (!clip) return;
  for (int64_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], -*clip, *clip);
}

// Buffers shared by the cell steps: `gates` [batch, gates*hidden] arrives
// holding X_t*W^T + bias for each row; the step writes hNew (and cNew).
struct StepBuffers {
  std::vector<float> gates, hNew, cNew, scratch, scratch2;
};

// Ht = f(X_t*W^T + H_{t-1}*R^T + Wb + Rb)
void rnnStep(const RnnSpec& s, const RnnDirectionParams& p, const float* h, StepBuffers& buf) {
  const int64_t B = s.batch, H = s.hidden;
  sgemm(false, true, B, H, H, 1.0f, h, H, p.R, H, 1.0f, buf.gates.data(), H);
  clipValues(buf.gates.data(), B * H, s.clip);
  p.activations[0].apply(buf.gates.data(), B * H);
  std::copy(buf.gates.begin(), buf.gates.end(), buf.hNew.begin());
}

// Gate blocks z, r, h. The Rb of the h block is already in `gates` unless
// linear_before_reset, where it belongs inside the reset product.
void gruStep(const RnnSpec& s, const RnnDirectionParams& p, const float* h, StepBuffers& buf) {
  const int64_t B = s.batch, H = s.hidden, GH = 3 * H;
  const RnnActivation& f = p.activations[0];
  const RnnActivation& g = p.activations[1];
  float* gates = buf.gates.data();
  float* hr = buf.scratch.data();  // linear_before_reset: H_{t-1}*R^T, all blocks; else r (.) H_{t-1}
  if (s.linearBeforeReset) {
    sgemm(false, true, B, GH, H, 1.0f, h, H, p.R, H, 0.0f, hr, GH);
    for (int64_t b = 0; b < B; ++b) {
      float* gb = gates + b * GH;
      const float* hb = hr + b * GH;
      for (int64_t j = 0; j < 2 * H; ++j) gb[j] += hb[j];
      clipValues(gb, 2 * H, s.clip);
      f.apply(gb, 2 * H);
      const float* r = gb + H;
      for (int64_t j = 0; j < H; ++j) gb[2 * H + j] += r[j] * (hb[2 * H + j] + (p.Rb ? p.Rb[2 * H + j] : 0.0f));
    }
  } else {
    sgemm(false, true, B, 2 * H, H, 1.0f, h, H, p.R, H, 1.0f, gates, GH);
    for (int64_t b = 0; b < B; ++b) {
      float* gb = gates + b * GH;
      clipValues(gb, 2 * H, s.clip);
      f.apply(gb, 2 * H);
      for (int64_t j = 0; j < H; ++j) hr[b * H + j] = gb[H + j] * h[b * H + j];
    }
    sgemm(false, true, B, H, H, 1.0f, hr, H, p.R + 2 * H * H, H, 1.0f, gates + 2 * H, GH);
  }
  for (int64_t b = 0; b < B; ++b) {
    float* gb = gates + b * GH;
    float* ht = gb + 2 * H;
    clipValues(ht, H, s.clip);
    g.apply(ht, H);
    for (int64_t j = 0; j < H; ++j) buf.hNew[b * H + j] = (1.0f - gb[j]) * ht[j] + gb[j] * h[b * H + j];
  }
}

// Gate blocks i, o, f, c; peepholes P in the order i, o, f.
void lstmStep(const RnnSpec& s, const RnnDirectionParams& p, const float* h, const float* c, StepBuffers& buf) {
  const int64_t B = s.batch, H = s.hidden, GH = 4 * H;
  const RnnActivation& f = p.activations[0];
  const RnnActivation& g = p.activations[1];
  const RnnActivation& hAct = p.activations[2];
  sgemm(false, true, B, GH, H, 1.0f, h, H, p.R, H, 1.0f, buf.gates.data(), GH);
  const float* Pi = p.P;
  const float* Po = p.P ? p.P + H : nullptr;
  const float* Pf = p.P ? p.P + 2 * H : nullptr;
  float* tmp = buf.scratch.data();
  for (int64_t b = 0; b < B; ++b) {
    float* gi = buf.gates.data() + b * GH;
    float* go = gi + H;
    float* gf = gi + 2 * H;
    float* gc = gi + 3 * H;
    const float* cPrev = c + b * H;
    float* cNew = buf.cNew.data() + b * H;
    float* hNew = buf.hNew.data() + b * H;
    if (Pi)
      for (int64_t j = 0; j < H; ++j) gi[j] += Pi[j] * cPrev[j];
    clipValues(gi, H, s.clip);
    f.apply(gi, H);
    if (s.inputForget) {
      for (int64_t j = 0; j < H; ++j) gf[j] = 1.0f - gi[j];
    } else {
      if (Pf)
        for (int64_t j = 0; j < H; ++j) gf[j] += Pf[j] * cPrev[j];
      clipValues(gf, H, s.clip);
      f.apply(gf, H);
    }
    clipValues(gc, H, s.clip);
    g.apply(gc, H);
    for (int64_t j = 0; j < H; ++j) cNew[j] = gf[j] * cPrev[j] + gi[j] * gc[j];
    if (Po)
      for (int64_t j = 0; j < H; ++j) go[j] += Po[j] * cNew[j];
    clipValues(go, H, s.clip);
    f.apply(go, H);
    std::copy(cNew, cNew + H, tmp);
    clipValues(tmp, H, s.clip);
    hAct.apply(tmp, H);
    for (int64_t j = 0; j < H; ++j) hNew[j] = go[j] * tmp[j];
  }
}

}  // namespace

void runRnnDirection(const RnnSpec& s, int64_t dir, bool reverse, const float* X, const std::vector<int64_t>& lens,
                     const RnnDirectionParams& p, const RnnDirectionOutputs& out) {
  const int64_t S = s.seq, B = s.batch, I = s.input, H = s.hidden, GH = s.gates * H;
  const bool lstm = s.kind == RnnKind::Lstm;

  // Input projections of all steps in one product.
  std::vector<float> xw(static_cast<size_t>(S * B * GH));
  sgemm(false, true, S * B, GH, I, 1.0f, X, I, p.W, I, 0.0f, xw.data(), GH);
  std::vector<float> bias(static_cast<size_t>(GH), 0.0f);
  for (int64_t j = 0; j < GH; ++j) {
    const bool rbInside = s.kind == RnnKind::Gru && s.linearBeforeReset && j >= 2 * H;
    bias[j] = (p.Wb ? p.Wb[j] : 0.0f) + (p.Rb && !rbInside ? p.Rb[j] : 0.0f);
  }

  std::vector<float> h(static_cast<size_t>(B * H), 0.0f), c;
  if (p.h0) std::copy(p.h0, p.h0 + B * H, h.begin());
  if (lstm) {
    c.assign(static_cast<size_t>(B * H), 0.0f);
    if (p.c0) std::copy(p.c0, p.c0 + B * H, c.begin());
  }
  StepBuffers buf;
  buf.gates.resize(static_cast<size_t>(B * GH));
  buf.hNew.resize(static_cast<size_t>(B * H));
  if (lstm) buf.cNew.resize(static_cast<size_t>(B * H));
  buf.scratch.resize(static_cast<size_t>(B * GH));

  const int64_t maxLen = lens.empty() ? 0 : *std::max_element(lens.begin(), lens.end());
  std::vector<int64_t> timeAt(static_cast<size_t>(B));  // each row's time index at this step, -1: done
  for (int64_t step = 0; step < maxLen; ++step) {
    for (int64_t b = 0; b < B; ++b) {
      float* gb = buf.gates.data() + b * GH;
      if (step >= lens[b]) {
        timeAt[b] = -1;
        std::fill(gb, gb + GH, 0.0f);  // computed but discarded
        continue;
      }
      timeAt[b] = reverse ? lens[b] - 1 - step : step;
      const float* xb = xw.data() + (timeAt[b] * B + b) * GH;
      for (int64_t j = 0; j < GH; ++j) gb[j] = xb[j] + bias[j];
    }
    switch (s.kind) {
      case RnnKind::Rnn: rnnStep(s, p, h.data(), buf); break;
      case RnnKind::Gru: gruStep(s, p, h.data(), buf); break;
      case RnnKind::Lstm: lstmStep(s, p, h.data(), c.data(), buf); break;
    }
    for (int64_t b = 0; b < B; ++b) {
      if (timeAt[b] < 0) continue;
      const float* hb = buf.hNew.data() + b * H;
      std::copy(hb, hb + H, h.data() + b * H);
      if (lstm) std::copy(buf.cNew.data() + b * H, buf.cNew.data() + (b + 1) * H, c.data() + b * H);
      if (out.Y) std::copy(hb, hb + H, out.Y + ((timeAt[b] * s.numDirections + dir) * B + b) * H);
    }
  }

  for (int64_t b = 0; b < B; ++b) {
    const bool empty = lens[b] == 0;
    if (out.Yh)
      for (int64_t j = 0; j < H; ++j) out.Yh[b * H + j] = empty ? 0.0f : h[b * H + j];
    if (out.Yc)
      for (int64_t j = 0; j < H; ++j) out.Yc[b * H + j] = empty ? 0.0f : c[b * H + j];
  }
}

}  // namespace rammer::ops

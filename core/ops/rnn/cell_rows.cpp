#include "core/ops/rnn/cell_rows.h"

#include <algorithm>
#include <vector>

namespace rammer::ops {

namespace {

void clipValues(float* x, int64_t n, const std::optional<float>& clip) {
  if (!clip) return;
  for (int64_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], -*clip, *clip);
}

// n pre-activations: xw + bias, then + hr, the order in which the fused op
// adds the bias to the input product before accumulating the recurrent
// product onto it. `biasRow` / `hrRow` may be null (zero).
void gateSums(const float* xwRow, const float* biasRow, const float* hrRow, int64_t n, float* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = xwRow[j] + (biasRow ? biasRow[j] : 0.0f);
  if (hrRow)
    for (int64_t j = 0; j < n; ++j) out[j] += hrRow[j];
}

}  // namespace

void lstmCellRows(const CellArgs& a, float* h, float* c) {
  const int64_t H = a.hidden, GH = 4 * H;
  const RnnActivation& f = a.acts[0];
  const RnnActivation& g = a.acts[1];
  const RnnActivation& hAct = a.acts[2];
  const float* Pi = a.peep;
  const float* Po = a.peep ? a.peep + H : nullptr;
  const float* Pf = a.peep ? a.peep + 2 * H : nullptr;
  std::vector<float> gates(static_cast<size_t>(GH)), zeros, tmp(static_cast<size_t>(H));
  if (!a.cPrev) zeros.assign(static_cast<size_t>(H), 0.0f);
  for (int64_t b = 0; b < a.batch; ++b) {
    float* gi = gates.data();
    float* go = gi + H;
    float* gf = gi + 2 * H;
    float* gc = gi + 3 * H;
    gateSums(a.xw + b * GH, a.bias, a.hr ? a.hr + b * GH : nullptr, GH, gi);
    const float* cPrev = a.cPrev ? a.cPrev + b * H : zeros.data();
    float* cNew = c + b * H;
    float* hNew = h + b * H;
    if (Pi)
      for (int64_t j = 0; j < H; ++j) gi[j] += Pi[j] * cPrev[j];
    clipValues(gi, H, a.clip);
    f.apply(gi, H);
    if (a.inputForget) {
      for (int64_t j = 0; j < H; ++j) gf[j] = 1.0f - gi[j];
    } else {
      if (Pf)
        for (int64_t j = 0; j < H; ++j) gf[j] += Pf[j] * cPrev[j];
      clipValues(gf, H, a.clip);
      f.apply(gf, H);
    }
    clipValues(gc, H, a.clip);
    g.apply(gc, H);
    for (int64_t j = 0; j < H; ++j) cNew[j] = gf[j] * cPrev[j] + gi[j] * gc[j];
    if (Po)
      for (int64_t j = 0; j < H; ++j) go[j] += Po[j] * cNew[j];
    clipValues(go, H, a.clip);
    f.apply(go, H);
    std::copy(cNew, cNew + H, tmp.data());
    clipValues(tmp.data(), H, a.clip);
    hAct.apply(tmp.data(), H);
    for (int64_t j = 0; j < H; ++j) hNew[j] = go[j] * tmp[j];
  }
}

void gruGatesRows(const CellArgs& a, float* z, float* rh) {
  const int64_t H = a.hidden, GH = 3 * H;
  std::vector<float> zr(static_cast<size_t>(2 * H));
  for (int64_t b = 0; b < a.batch; ++b) {
    gateSums(a.xw + b * GH, a.bias, a.hr ? a.hr + b * 2 * H : nullptr, 2 * H, zr.data());
    clipValues(zr.data(), 2 * H, a.clip);
    a.acts[0].apply(zr.data(), 2 * H);
    std::copy(zr.begin(), zr.begin() + H, z + b * H);
    if (!rh) continue;
    const float* r = zr.data() + H;
    for (int64_t j = 0; j < H; ++j) rh[b * H + j] = a.hPrev ? r[j] * a.hPrev[b * H + j] : 0.0f;
  }
}

void gruCandidateRows(const CellArgs& a, float* h) {
  const int64_t H = a.hidden, GH = 3 * H;
  std::vector<float> ht(static_cast<size_t>(H));
  for (int64_t b = 0; b < a.batch; ++b) {
    gateSums(a.xw + b * GH + 2 * H, a.bias ? a.bias + 2 * H : nullptr, a.hr ? a.hr + b * H : nullptr, H, ht.data());
    clipValues(ht.data(), H, a.clip);
    a.acts[1].apply(ht.data(), H);
    const float* zb = a.zGate + b * H;
    for (int64_t j = 0; j < H; ++j)
      h[b * H + j] = (1.0f - zb[j]) * ht[j] + zb[j] * (a.hPrev ? a.hPrev[b * H + j] : 0.0f);
  }
}

void gruCellRows(const CellArgs& a, float* h) {
  const int64_t H = a.hidden, GH = 3 * H;
  std::vector<float> gates(static_cast<size_t>(GH));
  for (int64_t b = 0; b < a.batch; ++b) {
    float* gb = gates.data();
    const float* hb = a.hr ? a.hr + b * GH : nullptr;
    gateSums(a.xw + b * GH, a.bias, hb, 2 * H, gb);
    gateSums(a.xw + b * GH + 2 * H, a.bias ? a.bias + 2 * H : nullptr, nullptr, H, gb + 2 * H);
    clipValues(gb, 2 * H, a.clip);
    a.acts[0].apply(gb, 2 * H);
    const float* r = gb + H;
    float* ht = gb + 2 * H;
    for (int64_t j = 0; j < H; ++j) ht[j] += r[j] * ((hb ? hb[2 * H + j] : 0.0f) + (a.rbH ? a.rbH[j] : 0.0f));
    clipValues(ht, H, a.clip);
    a.acts[1].apply(ht, H);
    const float* zb = gb;
    for (int64_t j = 0; j < H; ++j)
      h[b * H + j] = (1.0f - zb[j]) * ht[j] + zb[j] * (a.hPrev ? a.hPrev[b * H + j] : 0.0f);
  }
}

}  // namespace rammer::ops

#pragma once
// Float32 row arithmetic of the lowered RNN cell ops (cell_ops.h). The
// operation order follows rnn_cells.cpp step for step, so an unrolled LSTM or
// GRU reproduces the fused op up to the rounding of the matrix products.
#include <cstdint>
#include <optional>

#include "core/ops/rnn/rnn_activations.h"

namespace rammer::ops {

// Pointers to [batch, ...] rows; nullptr for an omitted (zero) input.
struct CellArgs {
  int64_t batch = 0, hidden = 0;
  const float* xw = nullptr;    // [B, gates*H]
  const float* hr = nullptr;    // [B, 4H] LSTM, [B, 2H] GruGates, [B, H] GruCandidate, [B, 3H] GruCell
  const float* bias = nullptr;  // [gates*H]
  const float* hPrev = nullptr; // [B, H]
  const float* cPrev = nullptr; // LSTM [B, H]
  const float* peep = nullptr;  // LSTM [3H]
  const float* zGate = nullptr; // GruCandidate [B, H]
  const float* rbH = nullptr;   // GruCell [H]
  const RnnActivation* acts = nullptr;  // f, g (, h)
  std::optional<float> clip;
  bool inputForget = false;
};

// Writes h [B, H] and c [B, H].
void lstmCellRows(const CellArgs& a, float* h, float* c);
// Writes z [B, H] and, when rh is not null, r (.) h_prev [B, H].
void gruGatesRows(const CellArgs& a, float* z, float* rh);
// Writes h [B, H] from the candidate's inputs (a.hr is (r (.) h) * R_h^T).
void gruCandidateRows(const CellArgs& a, float* h);
// linear_before_reset = 1: writes h [B, H].
void gruCellRows(const CellArgs& a, float* h);

}  // namespace rammer::ops

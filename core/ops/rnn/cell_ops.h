#pragma once
// The per-step cell operators (domain com.rammer) that the RNN lowering pass
// unrolls LSTM and GRU nodes into. The matrix products stay ordinary MatMuls;
// these ops are the element-wise gate arithmetic of one step, for [batch, H]
// rows. Attributes: hidden_size, clip, and the recurrent node's activations,
// activation_alpha, activation_beta copied verbatim, with num_directions and
// direction_index saying which of the listed triples/pairs this cell uses (so
// the activation list reads exactly as ONNX defines it).
#include <cstddef>
#include <cstdint>
#include <string>

namespace rammer::ops {

inline constexpr const char* kLstmCellOp = "LstmCell";
inline constexpr const char* kGruGatesOp = "GruGates";
inline constexpr const char* kGruCandidateOp = "GruCandidate";
inline constexpr const char* kGruCellOp = "GruCell";

// LstmCell: gates = xw + bias + hr (blocks i, o, f, c as ONNX orders them),
// then ONNX's LSTM step. Outputs: h_t [B, H], c_t [B, H]. Extra attribute:
// input_forget. Omitted hr / bias / c_prev / P count as zero.
enum LstmCellInput : size_t {
  kLstmCellXW = 0,  // [B, 4H]  x_t * W^T
  kLstmCellHR,      // [B, 4H]  h_{t-1} * R^T
  kLstmCellBias,    // [4H]     Wb + Rb
  kLstmCellC,       // [B, H]   c_{t-1}
  kLstmCellP,       // [3H]     peepholes i, o, f
};

// GruGates (linear_before_reset = 0): z = f(xw_z + b_z + hr_z), r likewise.
// Outputs: z [B, H], r (.) h_{t-1} [B, H] (the input of the candidate's
// recurrent MatMul; zero when h_prev is omitted).
enum GruGatesInput : size_t {
  kGruGatesXW = 0,  // [B, 3H]  x_t * W^T (blocks z, r, h; only z and r read)
  kGruGatesHR,      // [B, 2H]  h_{t-1} * R_zr^T
  kGruGatesBias,    // [3H]     Wb + Rb (only z and r read)
  kGruGatesH,       // [B, H]   h_{t-1}
};

// GruCandidate (linear_before_reset = 0):
//   h~ = g(xw_h + b_h + (r (.) h_{t-1}) * R_h^T),  h_t = (1 - z) h~ + z h_{t-1}.
enum GruCandidateInput : size_t {
  kGruCandXW = 0,  // [B, 3H]  (only the h block read)
  kGruCandRHR,     // [B, H]   (r (.) h_{t-1}) * R_h^T
  kGruCandBias,    // [3H]     Wb + Rb (only the h block read)
  kGruCandZ,       // [B, H]   from GruGates
  kGruCandH,       // [B, H]   h_{t-1}
};

// GruCell (linear_before_reset = 1): the whole step after the two MatMuls:
//   z, r = f(xw + b + hr),  h~ = g(xw_h + b_h + r (.) (hr_h + Rb_h)).
enum GruCellInput : size_t {
  kGruCellXW = 0,  // [B, 3H]
  kGruCellHR,      // [B, 3H]  h_{t-1} * R^T (all blocks)
  kGruCellBias,    // [3H]     Wb + Rb for z, r; Wb only for h
  kGruCellRbH,     // [H]      Rb_h, applied inside the reset product
  kGruCellH,       // [B, H]   h_{t-1}
};

// The recurrent product inside the cell (passes/recurrent_cell_fusion.h,
// issue #27 item 4): at small batch the step's h_{t-1} * R^T is a GEMV
// whose rKernel can apply the gate arithmetic to its sums (the cell then
// needs no hr tensor, no rTasks of its own and no barrier between the two).
// Such a cell leaves its hr slot empty and carries the product's operands
// in two slots after its own: h [B, K] and R^T [K, blocks * H], a constant;
// column blk * H + j of the product is what slot `hr` holds at [b, blk * H + j].
struct CellRecurrence {
  size_t hr = 0;     // the product's slot when it comes as a tensor
  size_t hSlot = 0;       // h_{t-1} (GruCandidate: r (.) h_{t-1})
  size_t weightSlot = 0;  // R^T
  int64_t blocks = 0;  // gate blocks of H columns in the product
};
// Rows x gate blocks a cell's recurrent product may have: the GEMV gates
// rKernel keeps one accumulator per pair in registers and 1 KB of shared
// memory each (core/kernels/cell_kernels.cpp); the fusion pass stays under it.
inline constexpr int64_t kMaxCellGateOutputs = 16;
// For LstmCell, GruGates, GruCandidate and GruCell; nullptr for another op.
const CellRecurrence* cellRecurrence(const std::string& opType);

}  // namespace rammer::ops

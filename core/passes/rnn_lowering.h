#pragma once
// Unrolls ONNX LSTM and GRU nodes into one cell per (layer, time step): the
// step's x_t, MatMuls with the transposed weights, and the element-wise gate
// ops of core/ops/rnn/cell_ops.h (LstmCell; GruGates + GruCandidate, or GruCell
// with linear_before_reset). Y, Y_h and Y_c are rebuilt (Concat + Reshape)
// only where used. When an RNN reads the Y of a lowered one (through the
// Squeeze / Reshape / Transpose that drop or merge the direction axis), its
// x_t is the producer's h_t itself, so cell (l, t) depends on (l, t-1) and
// (l-1, t) only: the diagonal wavefront of a stacked RNN that the scheduler
// can exploit. Left as they are, with a note: ragged sequence_lens, weights
// that are not constants, an unknown sequence length, non-float32 data.
#include "core/passes/pass.h"

namespace rammer::passes {

class RnnLowering : public Pass {
 public:
  std::string name() const override { return "rnn-lowering"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes

#pragma once
// Moves each step's recurrent MatMul (h_{t-1} * R^T, from RnnLowering) into
// the cell that reads it (issue #27 item 4): the cell takes the product's
// operands (ops::CellRecurrence) and its rKernel is a GEMV whose epilogue is
// the gate arithmetic, so a step of an LSTM or GRU is one operator instead
// of a MatMul, a barrier and a cell. Only at small batch (batch x gate
// blocks <= 16, the GEMV's accumulators), with R^T a constant and the
// product read by the cell alone. The input projection x_t * W^T stays a
// MatMul: it does not wait on the recurrence.
#include "core/passes/pass.h"

namespace rammer::passes {

class RecurrentCellFusion : public Pass {
 public:
  std::string name() const override { return "recurrent-cell-fusion"; }
  PassResult run(ir::Graph& graph, PassContext& ctx) override;
};

}  // namespace rammer::passes

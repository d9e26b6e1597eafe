#pragma once
// The buffers of a generated program: one per float32 graph value that an
// rKernel reads or writes, plus every graph input and output, plus each
// rKernel's workspace (RKernel::workspaceWords), no graph value. A view's
// output aliases its input's storage; the inputs of a Concat run in place
// (RKernel::inputsInPlace) lie in its output's, and the outputs of a
// Gather or Split run in place (outputsInPlace) in its input's, at their
// offsets. Each operator gets the buffer index
// of every pointer argument of its rKernel function (-1 for an omitted slot
// or a non-float constant, which the rKernel bakes into its code).
#include <cstdint>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"

namespace rammer::codegen {

struct BufferTable {
  std::vector<BufferInfo> buffers;
  // Per plan op: buffer index per input slot, then per output slot, then its
  // workspace if it has one (empty for views).
  std::vector<std::vector<int32_t>> opArgs;
};

// Fails naming the value when a float tensor has no fully known shape, or
// an operator's input is neither float32 nor a constant.
ir::Result<BufferTable> buildBufferTable(const schedule::Plan& plan, const ir::Graph& graph);

}  // namespace rammer::codegen

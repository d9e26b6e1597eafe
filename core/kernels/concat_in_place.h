#pragma once
// Concat in place (issue #45 item 4): a Concat whose inputs are contiguous
// blocks of its output (every dim before the axis is 1: the step outputs
// of an RNN layer along the sequence, or channels at batch 1) need not
// copy. Its producers write their results straight into their block of the
// Concat's buffer, and the Concat's one rTask moves nothing: it is only
// the point its consumers wait for. In the fifth H100 lease lstm_tc's
// output Concat (copy_1k) added 43 us to the critical path, deepspeech2's
// 106 us.
//
// The buffer tables (codegen/buffer_table.h, exec/buffer_arena.h) place
// each input at its offset when the plan's rKernel for the Concat has
// RKernel::inputsInPlace; the copy candidates stay, so a plan (or a
// measured trace) may still choose one.
#include <optional>
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// The element offset of each input inside the output when the Concat can
// run in place, else nullopt. Every input must be an operator's own output
// (not a graph input or output, a constant, or a view's, Concat's or Split's
// result: its storage must be free to move) used once by this Concat and
// by no other Concat, of the output's word type and not empty.
std::optional<std::vector<int64_t>> concatInPlaceOffsets(const ir::Graph& graph, ir::NodeId node);

// The in-place candidate: one rTask that moves nothing.
RKernel concatInPlaceKernel(ir::NodeId node, const ir::Node& n);

}  // namespace rammer::kernels

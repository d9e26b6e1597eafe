#pragma once
// Copies that need not copy (issue #45 item 4). An operator that only
// gathers its producers' outputs into one tensor, or hands out contiguous
// parts of one, can leave the data where it is:
//   - a Concat whose inputs are contiguous blocks of its output (every dim
//     before the axis is 1: an RNN layer's step outputs along the
//     sequence, channels at batch 1): its producers write their results
//     straight into their block of its buffer;
//   - a copy (copy_kernels.h: Gather of constant indices, Slice, Split,
//     Transpose, ...) each of whose outputs is one run of consecutive
//     elements of its input (an RNN's per-step input x[t], a Slice of
//     whole rows, a Transpose that moves only dims of extent 1): its
//     consumers read their part of the input in place.
// Either way its one rTask moves nothing; it is only the point its
// consumers wait for. In the fifth H100 lease lstm_tc's output Concat
// (copy_1k) added 43 us to the critical path, deepspeech2's 106 us.
//
// The buffer tables (codegen/buffer_table.h, exec/buffer_arena.h) place
// the moved values when the plan's rKernel has RKernel::inputsInPlace or
// outputsInPlace; the copies stay candidates, so a plan (or a measured
// trace) may still choose one.
#include <optional>
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// The element offset of each input inside the output when the Concat can
// run in place, else nullopt. Every input must be an operator's own output
// (not a graph input or output, a constant, or the result of a view or a
// copy: its storage must be free to move) used once
// by this Concat and by no other Concat, of the output's word type and not
// empty.
std::optional<std::vector<int64_t>> concatInPlaceOffsets(const ir::Graph& graph, ir::NodeId node);

// The element offset of each output inside input 0 when a copy other than
// Concat can hand out its parts in place, else nullopt: the copy rKernels'
// own element map (copySourceMaps) must read each output from one run of
// consecutive input elements. float32 only, every output fully known, not
// empty and not a graph output (the runtime binds those buffers itself).
std::optional<std::vector<int64_t>> partsInPlaceOffsets(const ir::Graph& graph, ir::NodeId node);

// The in-place candidates: one rTask that moves nothing, with the offsets
// above as RKernel::placeOffsets.
RKernel concatInPlaceKernel(ir::NodeId node, const ir::Node& n, std::vector<int64_t> offsets);
// "gather_in_place", "slice_in_place", ...
RKernel partsInPlaceKernel(ir::NodeId node, const ir::Node& n, std::vector<int64_t> offsets);

}  // namespace rammer::kernels

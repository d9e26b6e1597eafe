#pragma once
// Data movement: Concat, Split, Slice, Transpose, Gather and GatherElements
// (constant indices), Pad, Expand, Tile, DepthToSpace, SpaceToDepth. Every
// one is a set of segments; a segment walks an index box and reads its input
// at a sum of per-dim offsets (affine along a dim, or a baked table; a map
// with no per-dim structure gets one table entry per output element), so one
// rTask range runs over the concatenation of all segments' elements.
#include <string>
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

// Op types this family implements.
const std::vector<std::string>& copyOpTypes();

std::vector<RKernel> copyKernels(const NodeInfo& info);

// Where each output element comes from: its index in input 0, -1 for
// padding; one int64 tensor per output (empty when absent). Throws
// ops::OpError when an input other than the data is not a constant or an
// output is too large to probe.
std::vector<ir::Tensor> copySourceMaps(const NodeInfo& info);

}  // namespace rammer::kernels

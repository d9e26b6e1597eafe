#pragma once
// The fused-group rKernel (GraphTurbo's sub-graph kernel on the vDevice):
// one rTask per instance of a FusedGroup node (core/ops/group/fused_group.h).
// An rTask computes its members one after another, each over the range its
// consumers need, with every intermediate in the vEU's shared memory and a
// __syncthreads between members; only the sink's piece goes to global
// memory. Members are computed directly (a Conv output element is its dot
// product over the window), so the code is simple and identical on CUDA,
// HIP, the host target and the CPU tile.
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"
#include "core/ops/group/fused_group.h"

namespace rammer::kernels {

std::vector<RKernel> fusedGroupKernels(const NodeInfo& info);

// The rKernel's counts (rTasks, threads, shared memory, FLOPs, bytes by
// tier) without its code: what a policy prices while it forms groups.
RKernel fusedGroupEstimate(const ops::GroupGeometry& group);

}  // namespace rammer::kernels

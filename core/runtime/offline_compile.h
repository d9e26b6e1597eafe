#pragma once
// The plan's CUDA compiled without a GPU (issue #27 items 1 and 2): NVRTC
// for the device's architecture, ptxas's report read back, each program
// checked against the device with the registers the compiler really gave
// it (applyCompiledResources), so `rammer schedule --compile` and the
// studio show compiled counts, not the rKernels' estimates, and refuse a
// program whose vEUs the compiled kernel could not keep co-resident.
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/resource_check.h"
#include "core/schedule/plan.h"

namespace rammer::runtime {

struct OfflineCompile {
  std::string arch;          // "sm_90"
  std::string nvrtcVersion;  // "13.0"
  std::vector<ProgramResources> programs;  // one per launch
};

// Generates the plan's CUDA (plain, not instrumented), compiles it and
// applies the compiled registers to `plan` (PlannedOp::kernel.regsEstimate).
// Errors: NVRTC missing, a compile error, or a program the device cannot
// hold with the compiled counts (naming the program and the limit).
ir::Result<OfflineCompile> compileOffline(schedule::Plan& plan, const ir::Graph& graph, const NvrtcCompiler& nvrtc);

}  // namespace rammer::runtime

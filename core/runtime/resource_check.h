#pragma once
// Feeds the compiler's resource usage back into the plan: each program's
// occupancy is recomputed from the registers and shared memory its
// compiled kernel really uses, and a program whose vEUs could not all be
// co-resident is refused (its barriers could deadlock). On a GPU the
// driver's own occupancy query has the final word (see cuda_runner.h).
#include <map>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/device/occupancy.h"
#include "core/ir/diagnostic.h"
#include "core/runtime/kernel_resources.h"
#include "core/schedule/plan.h"

namespace rammer::runtime {

struct ProgramResources {
  int32_t program = -1;
  std::string kernel;
  int gridBlocks = 0;    // vEUs (persistent) or rTasks (an ordinary kernel)
  int blockThreads = 0;
  bool persistent = true;  // its blocks wait on each other: all must be resident
  KernelResourceUsage usage;
  int64_t sharedBytes = 0;  // static + dynamic, per block
  device::Occupancy occupancy;
  int coResident = 0;  // blocks per SM x SMs
  // The rKernel functions the kernel calls (KernelLaunch::functions), as
  // ptxas reported them, and their spills summed: an rKernel that spills
  // shows here, not in `usage`, which is the kernel's own frame.
  std::vector<std::pair<std::string, KernelResourceUsage>> functions;
  int64_t functionSpillStoreBytes = 0, functionSpillLoadBytes = 0;
  int64_t spillStoreBytes() const { return usage.spillStoreBytes + functionSpillStoreBytes; }
  std::string summary;  // one line for the CLI and the GUI
};

// Checks every launch against `plan.device` (co-residency applies to
// persistent launches only; any launch must fit one block on an SM) and,
// when all fit, sets each
// rKernel's regsEstimate to the registers of the kernel its rTasks run in
// (the largest, when an operator spans programs). Errors name the program,
// its kernel and the limiting resource.
ir::Result<std::vector<ProgramResources>> applyCompiledResources(
    schedule::Plan& plan, const codegen::GeneratedProgram& program,
    const std::map<std::string, KernelResourceUsage>& usage,
    const std::map<std::string, KernelResourceUsage>& functions = {});

}  // namespace rammer::runtime

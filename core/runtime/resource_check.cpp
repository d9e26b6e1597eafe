#include "core/runtime/resource_check.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>

namespace rammer::runtime {

namespace {

// What the binding limit amounts to for this kernel, in its own numbers.
std::string limitDetail(const ProgramResources& r, const device::DeviceSpec& d) {
  switch (r.occupancy.limitedBy) {
    case device::OccupancyLimit::Registers:
      return fmt::format("registers: {} per thread x {} threads", r.usage.registers, r.blockThreads);
    case device::OccupancyLimit::SharedMemory:
      return fmt::format("shared memory: {} B per block of {} B per SM", r.sharedBytes, d.sharedPerSM);
    case device::OccupancyLimit::Warps:
      return fmt::format("warps: {} threads per block", r.blockThreads);
    case device::OccupancyLimit::Blocks:
      return fmt::format("blocks per SM: at most {}", d.maxBlocksPerSM);
  }
  return "?";
}

// Operators whose rTasks a program runs.
std::set<int32_t> opsOf(const schedule::RProgram& p) {
  std::set<int32_t> ops;
  for (const auto& stream : p.streams())
    for (const auto& instr : stream)
      if (const auto* e = std::get_if<schedule::Exec>(&instr)) ops.insert(e->task.op);
  return ops;
}

}  // namespace

ir::Result<std::vector<ProgramResources>> applyCompiledResources(
    schedule::Plan& plan, const codegen::GeneratedProgram& program,
    const std::map<std::string, KernelResourceUsage>& usage,
    const std::map<std::string, KernelResourceUsage>& functions) {
  const device::DeviceSpec& d = plan.device;
  std::vector<ProgramResources> out;
  std::vector<ir::Diagnostic> errors;
  for (size_t i = 0; i < program.launches.size(); ++i) {
    const codegen::KernelLaunch& l = program.launches[i];
    const std::string who = fmt::format("program {} (kernel {})", l.program, l.kernel);
    auto u = usage.find(l.kernel);
    if (u == usage.end()) {
      errors.push_back(ir::makeError(who + ": the compiler reported no resource usage for it"));
      continue;
    }
    ProgramResources r;
    r.program = l.program;
    r.kernel = l.kernel;
    r.gridBlocks = l.gridBlocks;
    r.persistent = l.persistent;
    r.blockThreads = l.blockThreads;
    r.usage = u->second;
    r.sharedBytes = u->second.staticSharedBytes + l.dynamicSharedBytes;
    for (const std::string& f : l.functions) {
      auto it = functions.find(f);
      if (it == functions.end()) continue;  // inlined, or not reported
      r.functions.emplace_back(f, it->second);
      r.functionSpillStoreBytes += it->second.spillStoreBytes;
      r.functionSpillLoadBytes += it->second.spillLoadBytes;
    }
    r.occupancy = device::computeOccupancy(d, {l.blockThreads, r.usage.registers, r.sharedBytes});
    r.coResident = r.occupancy.blocksPerSM * d.sms;
    r.summary = fmt::format("{}: {} vEUs x {} threads, {} registers, {} B shared, {} B spilled ({} in rKernel "
                            "functions) -> {} blocks/SM",
                            who, l.gridBlocks, l.blockThreads, r.usage.registers, r.sharedBytes, r.spillStoreBytes(),
                            r.functionSpillStoreBytes, r.occupancy.blocksPerSM);
    if (r.occupancy.blocksPerSM == 0) {
      errors.push_back(ir::makeError(fmt::format("{} cannot run on {}: {}", who, d.id, r.occupancy.whyNone)));
    } else {
      r.summary += fmt::format(" (limited by {})", device::limitName(r.occupancy.limitedBy));
      // Only persistent kernels wait on each other's blocks; an ordinary
      // kernel's extra blocks simply run in later waves.
      if (l.persistent && l.gridBlocks > r.coResident)
        errors.push_back(ir::makeError(fmt::format(
            "{} has {} vEUs but only {} blocks can be co-resident on {} ({} per SM x {} SMs, limited by {}); "
            "its barriers could deadlock, so it is refused",
            who, l.gridBlocks, r.coResident, d.id, r.occupancy.blocksPerSM, d.sms, limitDetail(r, d))));
    }
    out.push_back(std::move(r));
  }
  if (!errors.empty()) return errors;

  // The registers each rKernel's rTasks really run with: those of the
  // persistent kernel they are inlined into.
  std::vector<int> regs(plan.ops.size(), 0);
  for (const ProgramResources& r : out) {
    if (r.program < 0 || static_cast<size_t>(r.program) >= plan.programs.size()) continue;
    for (int32_t op : opsOf(plan.programs[static_cast<size_t>(r.program)].program))
      if (op >= 0 && static_cast<size_t>(op) < regs.size())
        regs[static_cast<size_t>(op)] = std::max(regs[static_cast<size_t>(op)], r.usage.registers);
  }
  for (size_t op = 0; op < plan.ops.size(); ++op)
    if (regs[op] > 0) {
      plan.ops[op].kernel.regsEstimate = regs[op];
      plan.ops[op].kernel.regsCompiled = true;
    }
  return out;
}

}  // namespace rammer::runtime

#include "core/schedule/vdevice.h"

#include <algorithm>
#include <set>
#include <variant>

namespace rammer::schedule {

namespace {
std::string label(const KernelUse& k) { return "rKernel '" + k.kernel->name + "' of '" + k.op + "'"; }
}  // namespace

int registerBudget(const device::DeviceSpec& device, int threads, int64_t sharedBytes, int veusPerSM) {
  if (veusPerSM <= 0) return 0;
  const auto fits = [&](int regs) {
    return device::computeOccupancy(device, {threads, regs, sharedBytes}).blocksPerSM >= veusPerSM;
  };
  if (!fits(1)) return 0;  // the threads or the shared memory alone do not fit
  // The most registers that still leave `veusPerSM` blocks resident: the
  // SM's registers shared out evenly, then down past the allocation
  // granularity (a few steps; the policies ask this per candidate and shape).
  int regs = std::min(device.maxRegsPerThread,
                      static_cast<int>(device.regsPerSM / std::max<int64_t>(1, int64_t{threads} * veusPerSM)));
  while (regs > 1 && !fits(regs)) --regs;
  return std::max(regs, 1);
}

int64_t residentRegionBytes(const kernels::RKernel& kernel) { return (std::max<int64_t>(kernel.residentBytes, 0) + 15) / 16 * 16; }

ir::Result<VDevice> makeVDevice(const device::DeviceSpec& device, const std::vector<KernelUse>& kernels,
                                int veusPerSM, int64_t reservedSharedBytes) {
  VDevice l;
  const KernelUse* maxThreads = nullptr;
  const KernelUse* maxRegs = nullptr;
  const KernelUse* maxShared = nullptr;
  for (const KernelUse& k : kernels) {
    if (!k.kernel) continue;
    const device::Occupancy alone =
        device::computeOccupancy(device, {k.kernel->threads(), k.kernel->regsEstimate,
                                          k.kernel->sharedBytes + residentRegionBytes(*k.kernel)});
    if (alone.blocksPerSM == 0)
      return ir::makeError(label(k) + " cannot run on an SM of " + device.id + ": " + alone.whyNone, k.op);
    if (k.kernel->threads() >= l.threads) {
      l.threads = k.kernel->threads();
      maxThreads = &k;
    }
    if (k.kernel->regsEstimate >= l.regs) {
      l.regs = k.kernel->regsEstimate;
      maxRegs = &k;
    }
    if (k.kernel->sharedBytes >= l.sharedBytes) {
      l.sharedBytes = k.kernel->sharedBytes;
      maxShared = &k;
    }
    l.residentBytes = std::max(l.residentBytes, residentRegionBytes(*k.kernel));
  }
  l.threads = std::max(l.threads, 1);  // an empty program still launches one-thread blocks
  l.sharedBytes += std::max<int64_t>(reservedSharedBytes, 0) + l.residentBytes;
  if (veusPerSM > 0) {
    const int budget = registerBudget(device, l.threads, l.sharedBytes, veusPerSM);
    if (budget == 0 || budget < l.regs) {
      const std::string who = maxRegs && budget > 0 ? label(*maxRegs) + " needs " + std::to_string(l.regs) + " registers"
                                                    : "its threads and shared memory do not fit";
      return ir::makeError(std::to_string(veusPerSM) + " vEUs per SM on " + device.id + " leave a vEU of " +
                           std::to_string(l.threads) + " threads " + std::to_string(budget) + " registers: " + who);
    }
    l.regs = budget;
  }
  const device::Occupancy o = device::computeOccupancy(device, {l.threads, l.regs, l.sharedBytes});
  if (o.blocksPerSM == 0) {
    std::string who;
    for (const KernelUse* k : {maxThreads, maxRegs, maxShared})
      if (k && who.find(label(*k)) == std::string::npos) who += (who.empty() ? "" : ", ") + label(*k);
    return ir::makeError("the rKernels of one program cannot share a vEU on " + device.id + " (" + who +
                         " set the block's threads/registers/shared memory): " + o.whyNone);
  }
  l.sms = std::max(1, device.sms);
  l.veusPerSM = veusPerSM > 0 ? std::min(veusPerSM, o.blocksPerSM) : o.blocksPerSM;
  l.numVEUs = l.veusPerSM * std::max(1, device.sms);
  l.limitedBy = o.limitedBy;
  l.summary = std::to_string(l.veusPerSM) + " vEUs/SM x " + std::to_string(device.sms) + " SMs = " +
              std::to_string(l.numVEUs) + " vEUs (" +
              (veusPerSM > 0 ? std::string("the shape chosen") : "limited by " + device::limitName(o.limitedBy)) + "): " +
              std::to_string(l.threads) + " threads, " + std::to_string(l.regs) + " regs, " +
              std::to_string(l.sharedBytes) + " B shared per vEU" +
              (l.residentBytes ? " (" + std::to_string(l.residentBytes) + " B resident)" : "");
  return l;
}

ir::Result<VDevice> vdeviceOf(const Plan& plan, size_t program) {
  const ProgramInfo& info = plan.programs.at(program);
  std::vector<KernelUse> uses;
  for (int32_t op : opsOfProgram(plan, program))
    uses.push_back({plan.ops[static_cast<size_t>(op)].name, &plan.ops[static_cast<size_t>(op)].kernel});
  const int64_t reserved = info.dynamic ? kDispatchSlotBytes : 0;
  auto v = makeVDevice(plan.device, uses, 0, reserved);
  if (!v) return v;
  // A shape the policy chose with fewer vEUs per SM than the rKernels allow
  // gives each vEU more registers (VDevice::regs: the kernel's bounds).
  if (info.veusPerSM > 0 && info.veusPerSM < v->veusPerSM) {
    v = makeVDevice(plan.device, uses, info.veusPerSM, reserved);
    if (!v) return v;
  }
  // The program's own vEUs: a plan (or an edit) may use fewer than fit.
  v->numVEUs = info.program.numVEUs();
  return v;
}

}  // namespace rammer::schedule

#pragma once
// A vDevice (Rammer §3.2): the GPU as the schedule sees it, a set of vEUs
// (virtual execution units), each one persistent thread block of the
// rProgram's kernel. The vDevice of a program is sized for the largest rTask
// it may run: the block takes the maximum threads, registers and shared
// memory over the program's rKernels. The occupancy calculator then says how
// many such blocks are co-resident on an SM; the program gets exactly that
// many vEUs per SM (more could not all be resident at once and would
// deadlock on barriers). vEU v sits on SM v % SMs (sim::predictedSM).
#include <cstdint>
#include <string>
#include <vector>

#include "core/device/device_spec.h"
#include "core/device/occupancy.h"
#include "core/ir/diagnostic.h"
#include "core/kernels/rkernel.h"
#include "core/schedule/plan.h"

namespace rammer::schedule {

// One rKernel used by a program, with the operator it implements (for messages).
struct KernelUse {
  std::string op;
  const kernels::RKernel* kernel = nullptr;
};

struct VDevice {
  int sms = 0;
  int veusPerSM = 0;
  int numVEUs = 0;  // veusPerSM * SMs
  int threads = 0;  // per vEU (block)
  int regs = 0;     // per thread
  int64_t sharedBytes = 0;  // the resident region, the rKernels' scratch, a dynamic program's dispatch slot
  // Of sharedBytes, the resident region at the start of the block's shared
  // memory (kernels::RKernel::residentBytes: the largest of the program's
  // rKernels, 16-byte aligned); the rKernels' scratch begins after it.
  int64_t residentBytes = 0;
  device::OccupancyLimit limitedBy = device::OccupancyLimit::Blocks;
  std::string summary;  // "8 vEUs/SM (limited by warps): 256 threads, 32 regs, 0 B shared"
};

// The resident region `kernel` needs, rounded to 16 bytes (0: none).
int64_t residentRegionBytes(const kernels::RKernel& kernel);

// The vDevice for a program of these rKernels, or an error naming the
// rKernel (and its operator) that cannot fit on an SM, or the rKernels whose
// combined needs do not. `veusPerSM` > 0 asks for that shape (issue #27
// item 2: 1, 2 or 4 vEUs of 256 threads per SM give each up to 255, 128 or
// 64 registers): every rKernel's registers must fit the budget the shape
// leaves a vEU (VDevice::regs), else an error naming the first that does
// not; 0 takes as many vEUs as the largest rKernel allows.
// `reservedSharedBytes` is shared memory the program's kernel itself needs
// per vEU beside its rKernels' (a dynamic program's dispatch slot): part of
// VDevice::sharedBytes, so the shape holds for the kernel that is launched.
ir::Result<VDevice> makeVDevice(const device::DeviceSpec& device, const std::vector<KernelUse>& kernels,
                                int veusPerSM = 0, int64_t reservedSharedBytes = 0);

// The registers per thread a vEU of `threads` threads and `sharedBytes`
// gets when `veusPerSM` of them share an SM; 0 when they cannot.
int registerBudget(const device::DeviceSpec& device, int threads, int64_t sharedBytes, int veusPerSM);

// The vDevice program `program` of `plan` runs on: sized by the rKernels of
// the operators its rTasks belong to (rTasks of no plan operator are
// skipped: the validator reports them), with the program's own vEU count;
// a dynamic program's shared memory includes its dispatch slot.
// What the code generator sizes the persistent kernel's block by.
ir::Result<VDevice> vdeviceOf(const Plan& plan, size_t program);

}  // namespace rammer::schedule

#pragma once
// Compiles a GeneratedProgram's source with NVRTC for one architecture and
// reads back what ptxas says each launch's kernel uses.
#include <map>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/device/device_spec.h"
#include "core/ir/diagnostic.h"
#include "core/runtime/kernel_resources.h"
#include "core/runtime/nvrtc_compiler.h"

namespace rammer::runtime {

struct CompiledProgram {
  std::string arch;  // "sm_90"
  std::vector<char> cubin;
  std::string ptx;
  std::string log;  // NVRTC + ptxas report
  std::map<std::string, KernelResourceUsage> kernels;  // per __global__ (kernelResources)
  // Per non-inlined device function (the rKernel wrappers rammer_fnN): its
  // stack frame and spills from ptxas's report (parsePtxasFunctions).
  std::map<std::string, KernelResourceUsage> functions;
  // Registers per kernel read from the cubin's records; empty when they
  // could not be read (the log stays authoritative).
  std::map<std::string, int> cubinRegisters;
};

// "sm_90" for a device spec; its arch when it names one, else from the
// compute capability.
std::string cudaArch(const device::DeviceSpec& device);

// Each __global__'s resources: ptxas's report in the log, and for a kernel
// the log does not report (ptxas did not run: a cached or quiet compile),
// the cubin's register count (`cubinRegisters`, readCubinRegisterCounts) and
// static shared memory (an upper bound, see readCubinStaticShared); stack and
// spills are then unknown and read as zero.
std::map<std::string, KernelResourceUsage> kernelResources(const std::string& log,
                                                           const std::map<std::string, int>& cubinRegisters,
                                                           const std::vector<char>& cubin);

// An error for a HIP program, a compile error (with NVRTC's log), or a
// launch whose kernel the compiled source does not define.
ir::Result<CompiledProgram> compileProgram(const NvrtcCompiler& nvrtc, const codegen::GeneratedProgram& program,
                                           const std::string& arch);

}  // namespace rammer::runtime

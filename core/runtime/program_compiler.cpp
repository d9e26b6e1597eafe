#include "core/runtime/program_compiler.h"

#include <algorithm>

#include "core/runtime/cubin_registers.h"
#include "core/runtime/ptxas_log.h"

namespace rammer::runtime {

std::string cudaArch(const device::DeviceSpec& device) {
  if (device.arch.rfind("sm_", 0) == 0) return device.arch;
  return "sm_" + std::to_string(device.computeMajor) + std::to_string(device.computeMinor);
}

namespace {

// NVRTC has no C library headers, so <math.h>'s INFINITY and NAN, which
// rKernel sources use and nvcc builds get for free, are supplied here
// (guarded, so a source that defines them wins). #line keeps the log's line
// numbers those of the generated source.
constexpr const char* kNvrtcPrefix = R"(#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#line 1 "rammer_program.cu"
)";

}  // namespace

std::map<std::string, KernelResourceUsage> kernelResources(const std::string& log,
                                                           const std::map<std::string, int>& cubinRegisters,
                                                           const std::vector<char>& cubin) {
  std::map<std::string, KernelResourceUsage> kernels = parsePtxasLog(log);
  const bool allReported = std::all_of(cubinRegisters.begin(), cubinRegisters.end(),
                                       [&](const auto& k) { return kernels.count(k.first) != 0; });
  if (allReported) return kernels;
  auto shared = readCubinStaticShared(cubin);
  if (!shared) return kernels;
  for (const auto& [name, count] : cubinRegisters) {
    if (kernels.count(name)) continue;
    KernelResourceUsage& u = kernels[name];
    u.registers = count;
    if (auto it = shared->find(name); it != shared->end()) u.staticSharedBytes = it->second;
  }
  return kernels;
}

ir::Result<CompiledProgram> compileProgram(const NvrtcCompiler& nvrtc, const codegen::GeneratedProgram& program,
                                           const std::string& arch) {
  if (program.target != codegen::Target::Cuda)
    return ir::makeError("this program was generated for HIP; NVRTC compiles CUDA programs only");
  auto out = nvrtc.compile(kNvrtcPrefix + program.source, "rammer_program.cu", arch);
  if (!out) return out.errors();
  CompiledProgram c;
  c.arch = arch;
  c.cubin = std::move(out->cubin);
  c.ptx = std::move(out->ptx);
  c.log = std::move(out->log);
  if (auto regs = readCubinRegisterCounts(c.cubin)) c.cubinRegisters = std::move(regs).value();
  c.kernels = kernelResources(c.log, c.cubinRegisters, c.cubin);
  c.functions = parsePtxasFunctions(c.log);

  std::vector<ir::Diagnostic> errors;
  for (size_t i = 0; i < program.launches.size(); ++i) {
    const std::string& name = program.launches[i].kernel;
    if (!c.kernels.count(name))
      errors.push_back(ir::makeError("launch " + std::to_string(i) + " names kernel '" + name +
                                     "', which the compiled source does not define as an extern \"C\" __global__"));
  }
  if (!errors.empty()) return errors;
  return c;
}

}  // namespace rammer::runtime

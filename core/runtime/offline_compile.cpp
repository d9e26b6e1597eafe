#include "core/runtime/offline_compile.h"

#include "core/codegen/code_generator.h"
#include "core/runtime/program_compiler.h"
#include "core/schedule/plan.h"

namespace rammer::runtime {

ir::Result<OfflineCompile> compileOffline(schedule::Plan& plan, const ir::Graph& given, const NvrtcCompiler& nvrtc) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  codegen::CodegenOptions options;
  options.target = codegen::Target::Cuda;
  auto program = codegen::generateProgram(plan, graph, options);
  if (!program) return program.errors();
  OfflineCompile out;
  out.arch = cudaArch(plan.device);
  out.nvrtcVersion = nvrtc.version();
  auto compiled = compileProgram(nvrtc, *program, out.arch);
  if (!compiled) return compiled.errors();
  auto resources = applyCompiledResources(plan, *program, compiled->kernels, compiled->functions);
  if (!resources) return resources.errors();
  out.programs = std::move(resources).value();
  return out;
}

}  // namespace rammer::runtime

#include "core/pipeline/compile_stage.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/runtime/cuda_build.h"
#include "core/runtime/program_compiler.h"

namespace rammer::pipeline {

namespace {

ir::Result<CompiledCode> compileCuda(const schedule::Plan& plan, std::shared_ptr<const codegen::GeneratedProgram> program,
                                     const CompileOptions& options) {
  auto nvrtc = runtime::NvrtcCompiler::load(options.nvrtcLibraries);
  if (!nvrtc)
    return ir::makeError("compiling CUDA needs NVRTC (the CUDA toolkit's libnvrtc): " + nvrtc.errors().front().message);
  CompiledCode out;
  out.arch = options.arch.empty() ? runtime::cudaArch(plan.device) : options.arch;
  out.compiler = "NVRTC";
  out.version = (*nvrtc)->version();
  auto compiled = std::make_shared<schedule::Plan>(plan);
  auto build = runtime::compileGenerated(*compiled, std::move(program), **nvrtc, out.arch);
  if (!build) return build.errors();
  out.sourceHash = build->sourceHash;
  out.cached = build->cached;
  out.programs = std::move(build->resources);
  out.plan = std::move(compiled);
  return out;
}

ir::Result<CompiledCode> compileHost(const codegen::GeneratedProgram& program, const CompileOptions& options,
                                     const StageContext& context) {
  runtime::HostCompilerOptions host = options.host;
  if (!host.cancel) host.cancel = context.cancel;
  if (!host.status && context.progress)
    host.status = [&context](const std::string& what) { context.progress(what, 0.5); };
  auto build = runtime::buildHostProgram(program, host);
  if (!build) return build.errors();
  CompiledCode out;
  out.target = codegen::Target::Host;
  out.compiler = build->compiler;
  out.sourceHash = runtime::sourceHash(program.source);
  out.cached = build->cached;
  out.host = std::move(build).value();
  return out;
}

}  // namespace

ir::Result<CompiledCode> compileCode(const schedule::Plan& plan,
                                     std::shared_ptr<const codegen::GeneratedProgram> program,
                                     const CompileOptions& options, const StageContext& context) {
  switch (program->target) {
    case codegen::Target::Cuda: return compileCuda(plan, std::move(program), options);
    case codegen::Target::Host: return compileHost(*program, options, context);
    case codegen::Target::Hip: break;
  }
  return ir::makeError(
      "the pipeline compiles CUDA (NVRTC) and host programs; a HIP program is built by hipcc: export the project "
      "(rammer export --emit hip) and build it there");
}

std::string compileSummary(const CompiledCode& code) {
  std::string s;
  if (code.target == codegen::Target::Cuda) {
    int registers = 0;
    int64_t spills = 0;
    for (const auto& p : code.programs) {
      registers = std::max(registers, p.usage.registers);
      spills += p.spillStoreBytes();
    }
    s = fmt::format("{} {} for {}: {} program(s), at most {} registers, {}", code.compiler, code.version, code.arch,
                    code.programs.size(), registers, spills ? fmt::format("{} B spilled", spills) : "no spills");
  } else {
    s = fmt::format("{}: {}", code.compiler, code.host ? code.host->executable.string() : "");
  }
  return code.cached ? s + " (cached)" : s;
}

}  // namespace rammer::pipeline

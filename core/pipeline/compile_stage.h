#pragma once
// The pipeline's Compile stage: the Generate stage's code built by the
// compiler of its target (NVRTC for CUDA through runtime::compileGenerated,
// the system compiler for the host target through runtime::buildHostProgram;
// both cache by what they compile) and what the compiler gave each kernel
// read back. For CUDA the plan's rKernels then carry the compiled registers
// and spills, so `rammer schedule --compile` and the studio show compiled
// counts and refuse a program whose vEUs the compiled kernel could not keep
// co-resident. The CLI and the studio compile only through this stage
// (tests/docs/check_house.py).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/pipeline/stage.h"
#include "core/runtime/host_compiler.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/resource_check.h"
#include "core/schedule/plan.h"

namespace rammer::pipeline {

struct CompileOptions {
  // CUDA: where NVRTC is looked for, and the architecture ("sm_90"; empty:
  // the plan's device's).
  std::vector<std::string> nvrtcLibraries = runtime::NvrtcCompiler::defaultCandidates();
  std::string arch;
  // The host target: the compiler, its cache, ThreadSanitizer.
  runtime::HostCompilerOptions host;
};

// The Compile stage's value.
struct CompiledCode {
  codegen::Target target = codegen::Target::Cuda;
  std::string compiler;  // "NVRTC", or the host compiler's path and --version line
  std::string version;   // CUDA: NVRTC's, "13.0"
  std::string arch;      // CUDA: "sm_90"
  std::string sourceHash;
  bool cached = false;  // nothing was compiled now: the same code was built before
  // CUDA: per launch, what ptxas gave it, checked against the device; and
  // the plan whose rKernels carry those registers.
  std::vector<runtime::ProgramResources> programs;
  std::shared_ptr<const schedule::Plan> plan;
  std::optional<runtime::HostBuild> host;  // the host target's executable
};

// Errors: HIP (no HIP compiler in the pipeline: export the project and
// build it with hipcc), NVRTC or the host compiler missing, a compile
// error, or a program the device cannot hold with the compiled counts.
ir::Result<CompiledCode> compileCode(const schedule::Plan& plan,
                                     std::shared_ptr<const codegen::GeneratedProgram> program,
                                     const CompileOptions& options, const StageContext& context);

// "NVRTC 13.0 for sm_90: 3 program(s), at most 128 registers, no spills
// (cached)": the stage's log line.
std::string compileSummary(const CompiledCode& code);

}  // namespace rammer::pipeline

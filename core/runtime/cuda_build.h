#pragma once
// The one CUDA build of a plan (issue #44 item 4): generate -> compile with
// NVRTC -> apply the compiled registers and spills to the plan. The GPU
// run, the profiler and the pipeline's Compile stage all build here, so a
// compiled register count means the same thing everywhere, and a source
// NVRTC already compiled for an architecture is not compiled again (a
// process-wide cache keyed by the source's hash, the architecture and the
// NVRTC version: the studio recompiles an unchanged plan at once).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/program_compiler.h"
#include "core/runtime/resource_check.h"
#include "core/schedule/plan.h"

namespace rammer::runtime {

struct CudaBuild {
  std::shared_ptr<const codegen::GeneratedProgram> program;
  std::shared_ptr<const CompiledProgram> compiled;
  std::vector<ProgramResources> resources;  // per launch, as applyCompiledResources checked it
  std::string sourceHash;                   // FNV-1a 64 of program->source, hex
  bool cached = false;                      // NVRTC did not run: the same source was compiled before
};

// FNV-1a 64 of `text` in hex: names the exact code a latency or a trace
// belongs to, and keys the compile cache.
std::string sourceHash(const std::string& text);

// Compiles `program` for `arch`, or returns the compile of the same source
// for the same architecture and NVRTC made earlier in this process.
// `cached` (optional) says which.
ir::Result<std::shared_ptr<const CompiledProgram>> compileCached(const NvrtcCompiler& nvrtc,
                                                                 const codegen::GeneratedProgram& program,
                                                                 const std::string& arch, bool* cached = nullptr);

// Compiles an already generated CUDA program and checks every launch
// against `plan.device` with the compiled counts, which `plan`'s rKernels
// then carry (applyCompiledResources). Errors: a HIP or host program, a
// compile error (NVRTC's log), a program the device cannot hold.
ir::Result<CudaBuild> compileGenerated(schedule::Plan& plan, std::shared_ptr<const codegen::GeneratedProgram> program,
                                       const NvrtcCompiler& nvrtc, const std::string& arch);

// Generates the plan's CUDA (`instrument`: rTasks record their times) and
// compiles it as compileGenerated does. An instrumented build is checked on
// a copy: `plan` keeps the plain build's counts, the code whose latency is
// reported. `graph` is the graph the plan was scheduled from.
ir::Result<CudaBuild> buildCuda(schedule::Plan& plan, const ir::Graph& graph, const NvrtcCompiler& nvrtc,
                                const std::string& arch, bool instrument = false);

// How many compiles the cache holds, and drops them (tests).
size_t compileCacheSize();
void clearCompileCache();

}  // namespace rammer::runtime

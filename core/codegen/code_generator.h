#pragma once
// Code generation: a Plan becomes one CUDA (or HIP) translation unit with a
// __global__ kernel per rProgram, plus the buffer list and launch list the
// runtime and the exporter need (generated_program.h has the kernel ABI,
// docs/CODEGEN.md how the code works).
//
// Persistent kernels (Rammer): block = vEU, driven by an instruction table;
// code size grows with the number of distinct rKernel functions, not with
// rTasks. Sequential plans (RammerBase) get one ordinary kernel per
// operator through the same ABI.
#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"

namespace rammer::codegen {

// `graph` is the optimized graph the plan was scheduled from. Errors name
// the value or instruction that cannot be expressed.
ir::Result<GeneratedProgram> generateProgram(const schedule::Plan& plan, const ir::Graph& graph,
                                             const CodegenOptions& options = {});

}  // namespace rammer::codegen

#pragma once
// The pipeline's Generate stage: a validated plan's code for one target
// (CUDA, HIP, or the host's C++), as core/codegen writes it. Everything
// above core that shows, measures or exports generated code (the Code view,
// the profiler, `rammer export`, the studio's Export menu) gets it from
// here, so they all see the code the same options give; the runtime's own
// builds for a run stay inside the Run stage.
#include <string>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"

namespace rammer::pipeline {

// `graph` is the graph the plan was scheduled from (the plan's own after an
// IOS merge or fused attention is taken from the plan). Errors name the
// value or instruction the target cannot express.
ir::Result<codegen::GeneratedProgram> generateCode(const schedule::Plan& plan, const ir::Graph& graph,
                                                   const codegen::CodegenOptions& options);

// "cuda: 3 kernel launch(es), 12 rKernel function(s), 140 table entries,
// 45 KiB source": the stage's log line and `rammer export`'s.
std::string codeSummary(const codegen::GeneratedProgram& program);

}  // namespace rammer::pipeline

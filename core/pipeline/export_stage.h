#pragma once
// The pipeline's Export stage: the Generate stage's code written as a
// project that builds and checks itself (core/codegen/project_export.h):
// the kernels, the harness, the weights, seeded random inputs and the
// outputs the reference executor computes from them on the imported graph,
// which the built program compares its own against.
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/codegen/generated_program.h"
#include "core/codegen/project_export.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/pipeline/stage.h"
#include "core/schedule/plan.h"

namespace rammer::pipeline {

struct ProjectOptions {
  std::filesystem::path dir;  // created; files in it are replaced
  uint64_t inputSeed = 0;     // of the random inputs the project checks with
  std::string modelName;      // in the project's manifest and README
  // The reference run refuses a graph whose tensors exceed this
  // (exec/memory_budget.h); 0: half this machine's memory.
  int64_t maxMemoryBytes = 0;
};

// `program` is the plan's generated code, `graph` the graph it was
// generated from (it holds the weights), `original` the imported graph (the
// reference). Errors: no folder given, inputs or reference outputs that
// cannot be made, a file that cannot be written; nothing on a cancel but
// the error "cancelled".
ir::Result<codegen::ExportSummary> exportProject(const codegen::GeneratedProgram& program, const schedule::Plan& plan,
                                                 const ir::Graph& graph, const ir::Graph& original,
                                                 const ProjectOptions& options, const StageContext& context);

}  // namespace rammer::pipeline

#include "core/pipeline/generate_stage.h"

#include "core/codegen/code_generator.h"
#include "core/codegen/project_export.h"

namespace rammer::pipeline {

ir::Result<codegen::GeneratedProgram> generateCode(const schedule::Plan& plan, const ir::Graph& graph,
                                                   const codegen::CodegenOptions& options) {
  return codegen::generateProgram(plan, schedule::graphOf(plan, graph), options);
}

std::string codeSummary(const codegen::GeneratedProgram& program) {
  return std::string(codegen::targetName(program.target)) + ": " + std::to_string(program.launches.size()) +
         " kernel launch(es), " + std::to_string(program.numFunctions) + " rKernel function(s), " +
         std::to_string(program.numTableEntries) + " table entries, " + std::to_string(program.source.size() / 1024) +
         " KiB source";
}

}  // namespace rammer::pipeline

#pragma once
// `graph` through the pipeline from Optimize to Generate for CUDA, then
// compiled with NVRTC for the plan's device: every distinct rKernel of the
// program must compile. Skips the test when NVRTC is not installed.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/codegen/project_export.h"
#include "core/pipeline/pipeline.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/program_compiler.h"

namespace rammer::testing {

// `source` (when given) gets the generated source; it stays empty when the
// test was skipped or failed.
inline void expectCudaCompilesWithNvrtc(const ir::Graph& graph, std::string* source = nullptr) {
  auto nvrtc = runtime::NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "skipped: no NVRTC";
  pipeline::Options o;
  o.generate.target = codegen::Target::Cuda;
  pipeline::Artifacts given;
  given.original = std::make_shared<const ir::Graph>(graph);
  const pipeline::StagesResult r =
      pipeline::runStages(o, std::move(given), pipeline::Stage::Optimize, pipeline::Stage::Generate);
  ASSERT_TRUE(r.report.ok()) << ir::formatDiagnostics(r.report.diagnostics);
  auto compiled = runtime::compileProgram(**nvrtc, *r.artifacts.generated, runtime::cudaArch(r.artifacts.plan->device));
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  EXPECT_EQ(compiled->kernels.size(), codegen::distinctKernels(*r.artifacts.generated).size());
  if (source) *source = r.artifacts.generated->source;
}

}  // namespace rammer::testing

// The code generator's real output through NVRTC (no GPU needed): every
// launch's kernel is compiled, its registers read back two ways, and the
// plan's vEU counts hold with the compiled resources on the H100 preset.
#include <gtest/gtest.h>

#include "core/codegen/code_generator.h"
#include "core/runtime/program_compiler.h"
#include "core/runtime/resource_check.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/param_names.h"

namespace rammer::runtime {
namespace {

class GeneratedCompile : public ::testing::TestWithParam<std::string> {};

TEST_P(GeneratedCompile, SampleCnnCompilesAndFitsTheH100) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "skipped: no NVRTC";
  const ir::Graph graph = testing::optimizedSampleGraph("sample_cnn");
  schedule::Plan plan = testing::planSample(graph, GetParam());
  auto program = codegen::generateProgram(plan, graph, {codegen::Target::Cuda, true});
  ASSERT_TRUE(program.ok()) << program.errorText();
  auto compiled = compileProgram(**nvrtc, *program, cudaArch(plan.device));
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  for (const auto& l : program->launches) {
    ASSERT_TRUE(compiled->kernels.count(l.kernel)) << l.kernel;
    EXPECT_GT(compiled->kernels.at(l.kernel).registers, 0) << l.kernel;
    EXPECT_EQ(compiled->cubinRegisters.at(l.kernel), compiled->kernels.at(l.kernel).registers) << l.kernel;
  }
  auto resources = applyCompiledResources(plan, *program, compiled->kernels);
  ASSERT_TRUE(resources.ok()) << resources.errorText();
  ASSERT_EQ(resources->size(), program->launches.size());
  for (size_t i = 0; i < resources->size(); ++i) {
    const ProgramResources& r = (*resources)[i];
    if (!program->launches[i].persistent) continue;
    // Its launched vEUs need boundsBlocksPerSM blocks per SM (at most the
    // plan's vEUs per SM); the compiled kernel must allow that many.
    EXPECT_GE(r.occupancy.blocksPerSM, program->launches[i].boundsBlocksPerSM) << r.summary;
    EXPECT_GE(r.coResident, program->launches[i].gridBlocks) << r.summary;
  }
  // Every scheduled operator now carries a compiled register count.
  for (const auto& op : plan.ops) {
    if (!op.isView) {
      EXPECT_GT(op.kernel.regsEstimate, 0) << op.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Runtime, GeneratedCompile, ::testing::Values("sequential", "wavefront", "greedy"),
                         rammer::testing::ParamName());

}  // namespace
}  // namespace rammer::runtime

// Graph launches on the host target (HostExecutionOptions::launch): the
// exported harness captures one run's memsets and launches and the host
// runtime replays them (rammer_host.h, "graphs"). A sequential plan (a
// program per operator), a wavefront plan cut in two (barriers: the steps
// are reset at the start of each replay) and a dynamic plan cut in two
// (ready queues, zeroed by the captured clears) each match the reference,
// on the first replay and, by the program's own check, on the last; the
// recording run after the replays still records every rTask.
#include <gtest/gtest.h>

#include "core/codegen/project_export.h"
#include "core/exec/reference_executor.h"
#include "core/runtime/host_execution.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

namespace fs = std::filesystem;

schedule::Plan cutBeforeDown(const ir::Graph& g, const std::string& policy) {
  schedule::Constraints c;
  c.cutBefore = {"down"};
  return testing::planSample(g, policy, "h100", c);
}

void expectGraphRunsMatch(const schedule::Plan& plan, const ir::Graph& g, const std::string& name) {
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  HostExecutionOptions o = testing::hostTestOptions();
  o.launch = LaunchMode::Graph;
  o.warmup = 1;
  o.repeat = 3;
  o.measureTrace = true;
  auto built = buildHostPlan(plan, g, o);
  ASSERT_TRUE(built.ok()) << built.errorText();
  auto got = runHostProgram(*built, plan, g, inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_EQ(got->launch, LaunchMode::Graph);
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4);
  ASSERT_TRUE(got->trace.has_value());
  EXPECT_EQ(got->trace->tasks.size(), plan.numRTasks()) << "the recording run is a stream run that records";

  // Every replay computes the same: the program compares its last one with the reference too.
  const fs::path dir = fs::path(RAMMER_BINARY_DIR) / "tests/codegen_work/host_graph" / name;
  fs::remove_all(dir);
  auto data = codegen::writeProgramData(dir, built->program, g,
                                        codegen::ExportData{"model", plan.policy, plan.device.id, inputs, *want});
  ASSERT_TRUE(data.ok()) << data.errorText();
  SubprocessOptions so;
  so.timeoutSeconds = 600;
  const SubprocessResult r =
      runSubprocess({built->build.executable.string(), dir.string(), "--runs", "3", "--launch", "graph"}, so);
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.output;
  EXPECT_NE(r.output.find("kernel launches each, graph launch)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("last run: "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
}

TEST(HostGraphRun, ASequentialPlanMatchesTheReference) {
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = testing::planSample(g, "sequential");
  ASSERT_GT(plan.programs.size(), 5u);
  expectGraphRunsMatch(plan, g, "sequential");
}

TEST(HostGraphRun, AWavefrontPlanCutInTwoMatchesTheReference) {
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = cutBeforeDown(g, "wavefront");
  ASSERT_EQ(plan.programs.size(), 2u);
  expectGraphRunsMatch(plan, g, "wavefront_cut");
}

TEST(HostGraphRun, ADynamicPlanCutInTwoMatchesTheReference) {
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = cutBeforeDown(g, "dynamic");
  ASSERT_EQ(plan.programs.size(), 2u);
  ASSERT_TRUE(plan.programs[0].dynamic);
  expectGraphRunsMatch(plan, g, "dynamic_cut");
}

}  // namespace
}  // namespace rammer::runtime

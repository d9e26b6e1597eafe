// runPipeline as a pure function: stages run in order from any start,
// failures name their stage, a set cancel flag stops before the next stage.
#include "viz/models/studio_pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>

#include "core/device/device_spec.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"

namespace rammer::viz {
namespace {

std::string sampleCnn() { return RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx"; }

// What a plan is, for comparing two: kernels per op, programs, barriers.
std::string planShape(const schedule::Plan& plan) {
  std::string s;
  for (const auto& op : plan.ops) s += op.name + "=" + op.kernel.name + ";";
  for (const auto& p : plan.programs)
    s += "|" + std::to_string(p.program.numVEUs()) + "/" + std::to_string(p.program.numBarriers());
  return s;
}

// The studio plans and predicts with the analytic model's rTask times, as
// `rammer schedule` does, so both show the same plan. The policies' built-in
// estimate (no memory latency term) plans NASNet's wavefront differently,
// which is what makes the comparison able to fail.
TEST(StudioPipeline, PlansAsRammerScheduleDoes) {
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device);
  const auto model = std::make_shared<const sim::AnalyticCostModel>();
  int differsFromBuiltIn = 0;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {sampleCnn(), "wavefront"}, {sampleCnn(), "greedy"}, {RAMMER_SAMPLES_DIR "/nasnet_cifar.onnx", "wavefront"}};
  for (const auto& [path, policyName] : cases) {
    SCOPED_TRACE(path + " " + policyName);
    PipelineRequest q;
    q.options = studioOptions(path, {});
    q.options.policy = schedule::parsePolicy(policyName).value();
    const PipelineResult r = runPipeline(q, {});
    ASSERT_TRUE(r.ok() && r.artifacts.plan && r.artifacts.predicted);
    auto policy = schedule::makePolicy(policyName, sim::policyOptions(model));
    ASSERT_TRUE(policy);
    auto plan = (*policy)->schedule(*r.artifacts.optimized, *device, {});
    ASSERT_TRUE(plan);
    EXPECT_EQ(planShape(*r.artifacts.plan), planShape(*plan));
    auto trace = sim::Simulator(model).run(*plan);
    ASSERT_TRUE(trace);
    EXPECT_DOUBLE_EQ(r.artifacts.predicted->totalUs, trace->totalUs);

    auto builtIn = schedule::makePolicy(policyName);
    auto other = (*builtIn)->schedule(*r.artifacts.optimized, *device, {});
    ASSERT_TRUE(other);
    auto otherTrace = sim::Simulator(model).run(*other);
    ASSERT_TRUE(otherTrace);
    differsFromBuiltIn += planShape(*other) != planShape(*plan) || otherTrace->totalUs != trace->totalUs;
  }
  EXPECT_GT(differsFromBuiltIn, 0);
}

TEST(StudioPipeline, RunsEveryStageUpToSimulate) {
  PipelineRequest q;
  q.options = studioOptions(sampleCnn(), {});
  std::vector<int> percents;
  pipeline::Control control;
  control.progress = [&](const std::string&, int p) { percents.push_back(p); };
  PipelineResult r = runPipeline(q, control);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.report.lastDone, PipelineStage::Simulate);
  for (auto s : {PipelineStage::Import, PipelineStage::Optimize, PipelineStage::Schedule, PipelineStage::Validate,
                 PipelineStage::Simulate})
    EXPECT_TRUE(r.done(s)) << stageLabel(s).toStdString();
  EXPECT_FALSE(r.done(PipelineStage::Run));
  ASSERT_TRUE(r.artifacts.original && r.artifacts.optimized && r.artifacts.plan && r.artifacts.predicted);
  EXPECT_LT(r.artifacts.optimized->numNodes(), r.artifacts.original->numNodes());  // batch norms folded
  ASSERT_TRUE(r.artifacts.validation);
  EXPECT_TRUE(r.artifacts.validation->ok());
  EXPECT_EQ(r.report.log.size(), 5u);
  ASSERT_FALSE(percents.empty());
  EXPECT_TRUE(std::is_sorted(percents.begin(), percents.end()));
  EXPECT_LT(percents.back(), 100);
}

TEST(StudioPipeline, StartsFromScheduleWithTheGivenGraph) {
  PipelineRequest load;
  load.options = studioOptions(sampleCnn(), {});
  load.to = PipelineStage::Optimize;
  PipelineResult loaded = runPipeline(load, {});
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(loaded.artifacts.plan);

  PipelineRequest q;
  q.from = PipelineStage::Schedule;
  q.options.policy = schedule::PolicyId::Sequential;
  q.options.device = "v100";
  q.given.original = loaded.artifacts.original;
  q.given.optimized = loaded.artifacts.optimized;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.artifacts.optimized, loaded.artifacts.optimized);  // the same graph, not re-imported
  EXPECT_EQ(r.artifacts.plan->policy, "sequential");
  EXPECT_EQ(r.artifacts.predicted->device, "v100");
}

TEST(StudioPipeline, FailuresNameTheirStage) {
  PipelineRequest q;
  q.from = PipelineStage::Schedule;
  PipelineResult r = runPipeline(q, {});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.report.failedStage, PipelineStage::Schedule);
  EXPECT_FALSE(r.report.lastDone);
  ASSERT_EQ(r.report.diagnostics.size(), 1u);
  EXPECT_EQ(stageOf(r.report.diagnostics[0]), PipelineStage::Schedule);

  PipelineRequest bad;
  bad.options = studioOptions(sampleCnn(), {});
  bad.options.device = "tpu9";
  PipelineResult d = runPipeline(bad, {});
  EXPECT_EQ(d.report.failedStage, PipelineStage::Schedule);
  EXPECT_EQ(d.report.lastDone, PipelineStage::Optimize);
  ASSERT_FALSE(d.report.diagnostics.empty());
  EXPECT_NE(d.report.diagnostics[0].message.find("tpu9"), std::string::npos);
}

TEST(StudioPipeline, ACancelledJobStopsBeforeItsNextStage) {
  std::atomic<bool> cancel{true};
  pipeline::Control control;
  control.cancel = &cancel;
  PipelineRequest q;
  q.options = studioOptions(sampleCnn(), {});
  PipelineResult r = runPipeline(q, control);
  EXPECT_TRUE(r.report.cancelled);
  EXPECT_FALSE(r.report.lastDone);
  EXPECT_FALSE(r.artifacts.original);

  // Cancelled from inside a stage: the next stage does not run.
  std::atomic<bool> flag{false};
  pipeline::Control midway;
  midway.cancel = &flag;
  midway.progress = [&](const std::string& what, int) {
    if (what.starts_with("Optimizing")) flag = true;
  };
  PipelineResult m = runPipeline(q, midway);
  EXPECT_TRUE(m.report.cancelled);
  EXPECT_EQ(m.report.lastDone, PipelineStage::Optimize);
  EXPECT_FALSE(m.artifacts.plan);
}

// The policies poll the flag: a cancel while scheduling stops the policy
// itself (no plan), and is not reported as a failure.
TEST(StudioPipeline, ACancelWhileSchedulingStopsThePolicy) {
  std::atomic<bool> flag{false};
  pipeline::Control control;
  control.cancel = &flag;
  control.progress = [&](const std::string& what, int) {
    if (what.starts_with("Scheduling")) flag = true;
  };
  PipelineRequest q;
  q.options = studioOptions(sampleCnn(), {});
  PipelineResult r = runPipeline(q, control);
  EXPECT_TRUE(r.report.cancelled);
  EXPECT_EQ(r.report.lastDone, PipelineStage::Optimize);
  EXPECT_FALSE(r.artifacts.plan);
  for (const auto& d : r.report.diagnostics) EXPECT_NE(d.severity, ir::Severity::Error) << d.message;
}

TEST(StudioPipeline, RunOnTheEmulatorWithoutAGpu) {
  PipelineRequest q;
  q.options = studioOptions(sampleCnn(), {});
  q.to = PipelineStage::Run;
  runtime::CudaCapability none;
  none.message = "no CUDA driver (test)";
  q.options.run.capability = none;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.report.diagnostics.empty() ? "" : r.report.diagnostics[0].message);
  EXPECT_EQ(r.artifacts.run->backend, RunBackend::Emulator);
  EXPECT_EQ(r.artifacts.run->label, kEmulatedNoGpuLabel);
  ASSERT_TRUE(r.artifacts.run->trace);
  EXPECT_EQ(r.artifacts.run->trace->tasks.size(), r.artifacts.plan->numRTasks());
}

// The host target: the generated kernels built and run on the CPU, their
// outputs checked against the reference, their own timings as the trace.
TEST(StudioPipeline, RunTheGeneratedCodeOnTheCpu) {
  qputenv("RAMMER_HOST_CACHE", RAMMER_BINARY_DIR "/host-cache");
  PipelineRequest q;
  q.options = studioOptions(sampleCnn(), {});
  q.to = PipelineStage::Run;
  q.options.run.target = RunTarget::Host;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.report.diagnostics.empty() ? "" : ir::formatDiagnostic(r.report.diagnostics[0]));
  EXPECT_EQ(r.artifacts.run->backend, RunBackend::Host);
  EXPECT_EQ(r.artifacts.run->label, kHostCodeLabel);
  ASSERT_TRUE(r.artifacts.run->trace);
  EXPECT_EQ(r.artifacts.run->trace->tasks.size(), r.artifacts.plan->numRTasks());
  EXPECT_TRUE(r.artifacts.run->trace->source.starts_with(kHostCodeLabel)) << r.artifacts.run->trace->source;
  std::map<std::string, double> metrics(r.artifacts.run->metrics.begin(), r.artifacts.run->metrics.end());
  EXPECT_LE(metrics.at("max_abs_diff_vs_reference"), 1e-3);
  EXPECT_GT(metrics.at("host_run_ms"), 0.0);
  EXPECT_GE(metrics.at("host_workers"), 1.0);
  bool said = false;
  for (const auto& d : r.report.diagnostics) said = said || d.message.find("generated kernels on the CPU") != std::string::npos;
  EXPECT_TRUE(said) << "the run says what it was";
}

// The emulator by choice is labelled without "no GPU".
TEST(StudioPipeline, RunOnTheEmulatorByChoice) {
  PipelineRequest q;
  q.options = studioOptions(sampleCnn(), {});
  q.to = PipelineStage::Run;
  q.options.run.target = RunTarget::Emulator;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.report.diagnostics.empty() ? "" : r.report.diagnostics[0].message);
  EXPECT_EQ(r.artifacts.run->backend, RunBackend::Emulator);
  EXPECT_EQ(r.artifacts.run->label, kEmulatedLabel);
}

}  // namespace
}  // namespace rammer::viz

namespace rammer::viz {
namespace {

// The GPU path wired through the runtime tests' stand-in driver (host
// "kernels" that do nothing): code generation and NVRTC run for real.
TEST(StudioPipeline, RunOnAStandInGpu) {
  const std::string fake = RAMMER_BINARY_DIR "/lib/librammer_fake_cuda.so";
  if (!std::filesystem::exists(fake)) GTEST_SKIP() << "stand-in driver not built";
  // Read by the stand-in when it loads: no-op kernels, an H100's SM count.
  qputenv("RAMMER_FAKE_CUDA_NOOP_KERNELS", "1");
  qputenv("RAMMER_FAKE_CUDA_SMS", "132");
  PipelineRequest q;
  q.options = studioOptions(sampleCnn(), {});
  q.to = PipelineStage::Run;
  q.options.run.libraries.driverLibrary = fake;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.report.diagnostics.empty() ? "" : ir::formatDiagnostic(r.report.diagnostics[0]));
  EXPECT_EQ(r.artifacts.run->backend, RunBackend::Gpu);
  EXPECT_EQ(r.artifacts.run->label, "measured: Fake GPU");
  std::map<std::string, double> metrics(r.artifacts.run->metrics.begin(), r.artifacts.run->metrics.end());
  EXPECT_EQ(metrics["latency_median_us"], 250);  // the stand-in's fixed event time
  // Its kernels compute nothing: the output check must say so (a warning;
  // the run itself worked), and so must the profile that recorded no rTask.
  EXPECT_GT(metrics["max_abs_diff_vs_reference"], 1e-3);
  bool outputWarning = false, profileWarning = false;
  for (const auto& d : r.report.diagnostics) {
    outputWarning |= d.severity == ir::Severity::Warning &&
                     d.message.find("differs from the reference") != std::string::npos;
    profileWarning |= d.severity == ir::Severity::Warning &&
                      d.message.find("CUPTI profile failed") != std::string::npos;
  }
  EXPECT_TRUE(outputWarning);
#ifdef RAMMER_HAVE_PROFILER
  EXPECT_TRUE(profileWarning);
#endif
}

}  // namespace
}  // namespace rammer::viz

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
    q.modelPath = path;
    q.plan.policy = policyName;
    const PipelineResult r = runPipeline(q, {});
    ASSERT_TRUE(r.ok() && r.plan && r.predicted);
    auto policy = schedule::makePolicy(policyName, sim::policyOptions(model));
    ASSERT_TRUE(policy);
    auto plan = (*policy)->schedule(*r.optimized, *device, {});
    ASSERT_TRUE(plan);
    EXPECT_EQ(planShape(*r.plan), planShape(*plan));
    auto trace = sim::Simulator(model).run(*plan);
    ASSERT_TRUE(trace);
    EXPECT_DOUBLE_EQ(r.predicted->totalUs, trace->totalUs);

    auto builtIn = schedule::makePolicy(policyName);
    auto other = (*builtIn)->schedule(*r.optimized, *device, {});
    ASSERT_TRUE(other);
    auto otherTrace = sim::Simulator(model).run(*other);
    ASSERT_TRUE(otherTrace);
    differsFromBuiltIn += planShape(*other) != planShape(*plan) || otherTrace->totalUs != trace->totalUs;
  }
  EXPECT_GT(differsFromBuiltIn, 0);
}

TEST(StudioPipeline, RunsEveryStageUpToSimulate) {
  PipelineRequest q;
  q.modelPath = sampleCnn();
  std::vector<int> percents;
  JobControl control;
  control.progress = [&](const QString&, int p) { percents.push_back(p); };
  PipelineResult r = runPipeline(q, control);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.lastDone, PipelineStage::Simulate);
  for (auto s : {PipelineStage::Import, PipelineStage::Optimize, PipelineStage::Schedule, PipelineStage::Validate,
                 PipelineStage::Simulate})
    EXPECT_TRUE(r.done(s)) << stageLabel(s).toStdString();
  EXPECT_FALSE(r.done(PipelineStage::Run));
  ASSERT_TRUE(r.original && r.optimized && r.plan && r.predicted);
  EXPECT_LT(r.optimized->numNodes(), r.original->numNodes());  // batch norms folded
  ASSERT_TRUE(r.validation);
  EXPECT_TRUE(r.validation->ok());
  EXPECT_EQ(r.log.size(), 5u);
  ASSERT_FALSE(percents.empty());
  EXPECT_TRUE(std::is_sorted(percents.begin(), percents.end()));
  EXPECT_LT(percents.back(), 100);
}

TEST(StudioPipeline, StartsFromScheduleWithTheGivenGraph) {
  PipelineRequest load;
  load.modelPath = sampleCnn();
  load.to = PipelineStage::Optimize;
  PipelineResult loaded = runPipeline(load, {});
  ASSERT_TRUE(loaded.ok());
  EXPECT_FALSE(loaded.plan);

  PipelineRequest q;
  q.from = PipelineStage::Schedule;
  q.plan.policy = "sequential";
  q.plan.device = "v100";
  q.original = loaded.original;
  q.optimized = loaded.optimized;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.optimized, loaded.optimized);  // the same graph, not re-imported
  EXPECT_EQ(r.plan->policy, "sequential");
  EXPECT_EQ(r.predicted->device, "v100");
}

TEST(StudioPipeline, FailuresNameTheirStage) {
  PipelineRequest q;
  q.from = PipelineStage::Schedule;
  PipelineResult r = runPipeline(q, {});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failedStage, PipelineStage::Schedule);
  EXPECT_FALSE(r.lastDone);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].stage, PipelineStage::Schedule);

  PipelineRequest bad;
  bad.modelPath = sampleCnn();
  bad.plan.device = "tpu9";
  PipelineResult d = runPipeline(bad, {});
  EXPECT_EQ(d.failedStage, PipelineStage::Schedule);
  EXPECT_EQ(d.lastDone, PipelineStage::Optimize);
  ASSERT_FALSE(d.diagnostics.empty());
  EXPECT_NE(d.diagnostics[0].diagnostic.message.find("tpu9"), std::string::npos);
}

TEST(StudioPipeline, ACancelledJobStopsBeforeItsNextStage) {
  std::atomic<bool> cancel{true};
  JobControl control;
  control.cancel = &cancel;
  PipelineRequest q;
  q.modelPath = sampleCnn();
  PipelineResult r = runPipeline(q, control);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.lastDone);
  EXPECT_FALSE(r.original);

  // Cancelled from inside a stage: the next stage does not run.
  std::atomic<bool> flag{false};
  JobControl midway;
  midway.cancel = &flag;
  midway.progress = [&](const QString& what, int) {
    if (what.startsWith(QStringLiteral("Optimizing"))) flag = true;
  };
  PipelineResult m = runPipeline(q, midway);
  EXPECT_TRUE(m.cancelled);
  EXPECT_EQ(m.lastDone, PipelineStage::Optimize);
  EXPECT_FALSE(m.plan);
}

// The policies poll the flag: a cancel while scheduling stops the policy
// itself (no plan), and is not reported as a failure.
TEST(StudioPipeline, ACancelWhileSchedulingStopsThePolicy) {
  std::atomic<bool> flag{false};
  JobControl control;
  control.cancel = &flag;
  control.progress = [&](const QString& what, int) {
    if (what.startsWith(QStringLiteral("Scheduling"))) flag = true;
  };
  PipelineRequest q;
  q.modelPath = sampleCnn();
  PipelineResult r = runPipeline(q, control);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.lastDone, PipelineStage::Optimize);
  EXPECT_FALSE(r.plan);
  for (const auto& d : r.diagnostics) EXPECT_NE(d.diagnostic.severity, ir::Severity::Error) << d.diagnostic.message;
}

TEST(StudioPipeline, RunOnTheEmulatorWithoutAGpu) {
  PipelineRequest q;
  q.modelPath = sampleCnn();
  q.to = PipelineStage::Run;
  runtime::CudaCapability none;
  none.message = "no CUDA driver (test)";
  q.capability = none;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : r.diagnostics[0].diagnostic.message);
  EXPECT_EQ(r.backend, RunBackend::Emulator);
  EXPECT_EQ(r.runLabel, kEmulatedNoGpuLabel);
  ASSERT_TRUE(r.measured);
  EXPECT_EQ(r.measured->tasks.size(), r.plan->numRTasks());
}

// The host target: the generated kernels built and run on the CPU, their
// outputs checked against the reference, their own timings as the trace.
TEST(StudioPipeline, RunTheGeneratedCodeOnTheCpu) {
  qputenv("RAMMER_HOST_CACHE", RAMMER_BINARY_DIR "/host-cache");
  PipelineRequest q;
  q.modelPath = sampleCnn();
  q.to = PipelineStage::Run;
  q.runTarget = RunTarget::Host;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : ir::formatDiagnostic(r.diagnostics[0].diagnostic));
  EXPECT_EQ(r.backend, RunBackend::Host);
  EXPECT_EQ(r.runLabel, kHostCodeLabel);
  ASSERT_TRUE(r.measured);
  EXPECT_EQ(r.measured->tasks.size(), r.plan->numRTasks());
  EXPECT_TRUE(r.measured->source.starts_with(kHostCodeLabel)) << r.measured->source;
  std::map<std::string, double> metrics(r.runMetrics.begin(), r.runMetrics.end());
  EXPECT_LE(metrics.at("max_abs_diff_vs_reference"), 1e-3);
  EXPECT_GT(metrics.at("host_run_ms"), 0.0);
  EXPECT_GE(metrics.at("host_workers"), 1.0);
  bool said = false;
  for (const auto& d : r.diagnostics) said = said || d.diagnostic.message.find("generated kernels on the CPU") != std::string::npos;
  EXPECT_TRUE(said) << "the run says what it was";
}

// The emulator by choice is labelled without "no GPU".
TEST(StudioPipeline, RunOnTheEmulatorByChoice) {
  PipelineRequest q;
  q.modelPath = sampleCnn();
  q.to = PipelineStage::Run;
  q.runTarget = RunTarget::Emulator;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : r.diagnostics[0].diagnostic.message);
  EXPECT_EQ(r.backend, RunBackend::Emulator);
  EXPECT_EQ(r.runLabel, kEmulatedLabel);
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
  q.modelPath = sampleCnn();
  q.to = PipelineStage::Run;
  q.libraries.driverLibrary = fake;
  PipelineResult r = runPipeline(q, {});
  ASSERT_TRUE(r.ok()) << (r.diagnostics.empty() ? "" : ir::formatDiagnostic(r.diagnostics[0].diagnostic));
  EXPECT_EQ(r.backend, RunBackend::Gpu);
  EXPECT_EQ(r.runLabel, "measured: Fake GPU");
  std::map<std::string, double> metrics(r.runMetrics.begin(), r.runMetrics.end());
  EXPECT_EQ(metrics["latency_median_us"], 250);  // the stand-in's fixed event time
  // Its kernels compute nothing: the output check must say so (a warning;
  // the run itself worked), and so must the profile that recorded no rTask.
  EXPECT_GT(metrics["max_abs_diff_vs_reference"], 1e-3);
  bool outputWarning = false, profileWarning = false;
  for (const auto& d : r.diagnostics) {
    outputWarning |= d.diagnostic.severity == ir::Severity::Warning &&
                     d.diagnostic.message.find("differs from the reference") != std::string::npos;
    profileWarning |= d.diagnostic.severity == ir::Severity::Warning &&
                      d.diagnostic.message.find("CUPTI profile failed") != std::string::npos;
  }
  EXPECT_TRUE(outputWarning);
#ifdef RAMMER_HAVE_PROFILER
  EXPECT_TRUE(profileWarning);
#endif
}

}  // namespace
}  // namespace rammer::viz

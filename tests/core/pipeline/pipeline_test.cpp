// The pipeline driven directly: every stage's value, re-running from a stage
// after an edit, failures as diagnostics tagged with their stage, progress
// and cancel, and the Run stage on the CPU backends.
#include "core/pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <variant>

#include "core/sim/plan_figures.h"
#include "tests/support/plan_mutation.h"

namespace rammer::pipeline {
namespace {

std::string sampleCnn() { return RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx"; }

Options cnnOptions() {
  Options o;
  o.modelPath = sampleCnn();
  o.import.batch = 1;
  return o;
}

bool hasMessage(const Report& r, const std::string& text) {
  for (const auto& d : r.diagnostics)
    if (d.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(Pipeline, EveryStageLeavesItsValue) {
  Pipeline p(cnnOptions());
  const Report r = p.run(Stage::Import, Stage::Simulate);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  EXPECT_EQ(r.lastDone, Stage::Simulate);
  for (Stage s : {Stage::Import, Stage::Optimize, Stage::Schedule, Stage::Validate, Stage::Simulate})
    EXPECT_TRUE(r.done(s)) << stageName(s);
  EXPECT_FALSE(r.done(Stage::Run));
  const Artifacts& a = p.artifacts();
  ASSERT_TRUE(a.original && a.optimized && a.plan && a.validation && a.predicted);
  EXPECT_FALSE(a.run);
  EXPECT_TRUE(a.validation->ok());
  EXPECT_FALSE(a.passLog.empty());
  // The optimizer folded the batch norms: the graphs are two values.
  EXPECT_LT(a.optimized->numNodes(), a.original->numNodes());
  EXPECT_EQ(r.log.size(), 5u);
  EXPECT_EQ(a.plan->policy, "wavefront");
  EXPECT_GT(a.predicted->totalUs, 0);
}

TEST(Pipeline, RerunsFromAStageReusingTheEarlierValues) {
  Pipeline p(cnnOptions());
  ASSERT_TRUE(p.run(Stage::Import, Stage::Simulate).ok());
  const auto original = p.artifacts().original;
  const auto optimized = p.artifacts().optimized;
  const auto wavefront = p.artifacts().plan;
  const double wavefrontUs = p.artifacts().predicted->totalUs;

  p.options().policy = schedule::PolicyId::Sequential;
  const Report r = p.run(Stage::Schedule, Stage::Simulate);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  EXPECT_FALSE(r.done(Stage::Optimize));
  EXPECT_TRUE(r.done(Stage::Schedule));
  // Import and Optimize did not run again: the same graphs.
  EXPECT_EQ(p.artifacts().original, original);
  EXPECT_EQ(p.artifacts().optimized, optimized);
  ASSERT_TRUE(p.artifacts().plan && p.artifacts().predicted);
  EXPECT_NE(p.artifacts().plan, wavefront);
  EXPECT_EQ(p.artifacts().plan->policy, "sequential");
  // RammerBase launches one program per operator; the wavefront fewer.
  EXPECT_GT(p.artifacts().plan->programs.size(), wavefront->programs.size());
  EXPECT_NE(p.artifacts().predicted->totalUs, wavefrontUs);
}

TEST(Pipeline, AFailedStageIsAValueNamingItsStage) {
  Pipeline p(cnnOptions());
  p.options().device = "nosuch";  // the Schedule stage loads the device
  const Report r = p.run(Stage::Import, Stage::Simulate);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failedStage, Stage::Schedule);
  EXPECT_EQ(r.lastDone, Stage::Optimize);
  ASSERT_FALSE(r.errors().empty());
  EXPECT_EQ(r.errors().front().stage, "schedule");
  EXPECT_TRUE(hasMessage(r, "nosuch"));
  // What the earlier stages made stays; nothing after the failure exists.
  EXPECT_TRUE(p.artifacts().optimized);
  EXPECT_FALSE(p.artifacts().plan);
  EXPECT_FALSE(p.artifacts().predicted);

  p.options().device = "h100";
  p.options().policy = schedule::PolicyId::Greedy;
  EXPECT_TRUE(p.run(Stage::Schedule, Stage::Simulate).ok());
}

TEST(Pipeline, BadInputGetsOneClearMessage) {
  Options o = cnnOptions();
  o.modelPath = RAMMER_SOURCE_DIR "/no/such/model.onnx";
  Report r = Pipeline(o).run(Stage::Import, Stage::Simulate);
  EXPECT_EQ(r.failedStage, Stage::Import);
  ASSERT_EQ(r.errors().size(), 1u);
  EXPECT_EQ(r.errors()[0].message, "model not found");
  EXPECT_EQ(r.errors()[0].file, o.modelPath);
  EXPECT_EQ(r.errors()[0].stage, "import");

  o = cnnOptions();
  o.device = "tpu9";
  r = Pipeline(o).run(Stage::Import, Stage::Simulate);
  EXPECT_EQ(r.failedStage, Stage::Schedule);
  EXPECT_TRUE(hasMessage(r, "unknown device 'tpu9'"));
}

TEST(Pipeline, AStageWithoutItsInputsSaysWhich) {
  Pipeline p(cnnOptions());
  const Report r = p.run(Stage::Schedule, Stage::Simulate);
  EXPECT_EQ(r.failedStage, Stage::Schedule);
  EXPECT_TRUE(hasMessage(r, "no optimized graph yet"));
}

// An edit that puts a consumer ahead of its producer on one vEU: the
// policy refuses it, naming the edits file.
TEST(Pipeline, ARefusedEditNamesItsFile) {
  const auto dir = std::filesystem::temp_directory_path() / "rammer_pipeline_test";
  std::filesystem::create_directories(dir);
  const auto edits = dir / "early.json";
  std::ofstream(edits) << R"({"version": 1, "edits": [
      {"op": "move", "node": "pool1", "rtask": 0, "veu": 0, "order": 0},
      {"op": "move", "node": "stem", "rtask": 0, "veu": 0, "order": 1}]})";
  Options o = cnnOptions();
  o.scheduleEditsFile = edits.string();
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Simulate);
  EXPECT_EQ(r.failedStage, Stage::Schedule);
  ASSERT_FALSE(r.errors().empty());
  EXPECT_EQ(r.errors().front().file, edits.string());
  EXPECT_TRUE(hasMessage(r, "would run before their producers on the same vEU"));
  EXPECT_FALSE(p.artifacts().plan);
  std::filesystem::remove_all(dir);
}

// A plan edited by hand (a needed barrier deleted) and re-run from
// Validate: the validator refuses it naming an rTask, and the plan stays
// so an editor can show what the edit breaks.
TEST(Pipeline, AnInvalidPlanKeepsItsValueAndNamesTheRTask) {
  Pipeline p(cnnOptions());
  ASSERT_TRUE(p.run(Stage::Import, Stage::Simulate).ok());
  const schedule::Plan& plan = *p.artifacts().plan;
  std::shared_ptr<const schedule::Plan> broken;
  for (size_t prog = 0; prog < plan.programs.size() && !broken; ++prog) {
    const auto& streams = plan.programs[prog].program.streams();
    for (int32_t v = 0; v < static_cast<int32_t>(streams.size()) && !broken; ++v)
      for (int32_t k = 0; k < static_cast<int32_t>(streams[static_cast<size_t>(v)].size()) && !broken; ++k) {
        if (!std::holds_alternative<schedule::Barrier>(streams[static_cast<size_t>(v)][static_cast<size_t>(k)]))
          continue;
        schedule::Plan candidate = testing::withoutBarrier(plan, prog, schedule::Slot{v, k});
        if (!schedule::checkPlan(candidate, *p.artifacts().optimized).ok())
          broken = std::make_shared<const schedule::Plan>(std::move(candidate));
      }
  }
  ASSERT_TRUE(broken) << "the wavefront plan of sample_cnn has no needed barrier";
  p.artifacts().plan = broken;
  const Report r = p.run(Stage::Validate, Stage::Simulate);
  EXPECT_EQ(r.failedStage, Stage::Validate);
  EXPECT_EQ(p.artifacts().plan, broken);
  ASSERT_TRUE(p.artifacts().validation);
  EXPECT_FALSE(p.artifacts().validation->ok());
  EXPECT_FALSE(p.artifacts().predicted);
  bool namesRTask = false;
  for (const auto& d : r.errors()) {
    EXPECT_EQ(d.stage, "validate");
    if (!d.hasRTask()) continue;
    namesRTask = true;
    ASSERT_LT(static_cast<size_t>(d.rtaskOp), broken->ops.size());
    EXPECT_LT(d.rtask, broken->ops[static_cast<size_t>(d.rtaskOp)].kernel.numRTasks);
  }
  EXPECT_TRUE(namesRTask);
}

TEST(Pipeline, ReportsProgressAndStopsWhenCancelled) {
  std::vector<int> percents;
  std::vector<std::string> steps;
  Control control;
  control.progress = [&](const std::string& what, int percent) {
    percents.push_back(percent);
    steps.push_back(what);
  };
  Pipeline p(cnnOptions());
  ASSERT_TRUE(p.run(Stage::Import, Stage::Simulate, control).ok());
  ASSERT_GE(percents.size(), 5u);
  EXPECT_TRUE(std::is_sorted(percents.begin(), percents.end()));
  EXPECT_GE(percents.front(), 0);
  EXPECT_LE(percents.back(), 100);
  EXPECT_EQ(steps.front(), "Importing...");

  std::atomic<bool> cancel{true};
  control.cancel = &cancel;
  Pipeline q(cnnOptions());
  const Report r = q.run(Stage::Import, Stage::Simulate, control);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.lastDone);
  EXPECT_FALSE(q.artifacts().original);
}

TEST(Pipeline, RunsThePlanOnTheEmulatorAndChecksItsOutputs) {
  Options o = cnnOptions();
  o.run.target = RunTarget::Emulator;
  o.run.emulator.threads = 2;
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Run);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  const auto& run = p.artifacts().run;
  ASSERT_TRUE(run);
  EXPECT_EQ(run->backend, RunBackend::Emulator);
  EXPECT_EQ(run->label, kEmulatedLabel);
  ASSERT_TRUE(run->check);
  EXPECT_TRUE(run->check->match);
  EXPECT_LT(run->check->maxAbsDiff, 1e-3);
  ASSERT_TRUE(run->trace);
  EXPECT_EQ(run->trace->tasks.size(), p.artifacts().plan->numRTasks());
  EXPECT_EQ(run->outputs.size(), p.artifacts().original->outputs().size());
  ASSERT_TRUE(run->emulator);
  EXPECT_EQ(run->emulator->threads, 2);
}

// Without a GPU, Auto falls back to the emulator and says so; Gpu refuses.
TEST(Pipeline, AutoFallsBackToTheEmulatorWithoutAGpu) {
  Options o = cnnOptions();
  o.run.capability = runtime::CudaCapability{};  // nothing loaded: no GPU
  o.run.checkOutputs = false;
  Pipeline p(o);
  ASSERT_TRUE(p.run(Stage::Import, Stage::Run).ok());
  EXPECT_EQ(p.artifacts().run->backend, RunBackend::Emulator);
  EXPECT_EQ(p.artifacts().run->label, kEmulatedNoGpuLabel);

  p.options().run.target = RunTarget::Gpu;
  const Report r = p.run(Stage::Run, Stage::Run);
  EXPECT_EQ(r.failedStage, Stage::Run);
  EXPECT_TRUE(hasMessage(r, "no GPU to run on"));
  EXPECT_FALSE(p.artifacts().run);
  EXPECT_TRUE(p.artifacts().predicted);  // earlier stages' values stay
}

TEST(Pipeline, FiguresOfThePlanComeFromOnePlace) {
  Pipeline p(cnnOptions());
  ASSERT_TRUE(p.run(Stage::Import, Stage::Simulate).ok());
  const schedule::Plan& plan = *p.artifacts().plan;
  const sim::PlanFigures f = sim::figuresOf(plan, p.artifacts().predicted.get());
  size_t barriers = 0;
  for (const auto& info : plan.programs) barriers += info.program.numBarriers();
  EXPECT_EQ(f.barriers, barriers);
  EXPECT_EQ(f.programs, plan.programs.size());
  EXPECT_EQ(f.rtasks, plan.numRTasks());
  EXPECT_EQ(f.predictedUs, p.artifacts().predicted->totalUs);
  EXPECT_GT(f.smEfficiency, 0);
  EXPECT_LE(f.smEfficiency, 1);
  EXPECT_GT(f.maxVEUs, 0);
}

}  // namespace
}  // namespace rammer::pipeline

// What the session's side jobs leave for the document (issue #44 item 5:
// each job's wording and checks live with the job; the session applies every
// report the same way): a failed export or NVRTC compile is its errors
// tagged with the stage and one "... failed:" line; a compile whose plan
// changed meanwhile applies nothing but is no failed job; a measured trace
// becomes the run, labelled with the file, or says why not. Each job's file
// also says, before it starts, why it may not (SideJob's refusal) and what
// it is called while it runs.
#include "viz/models/side_job_report.h"

#include <gtest/gtest.h>

#include "core/pipeline/compile_stage.h"
#include "viz/models/measured_trace_opening.h"
#include "viz/models/nvrtc_compile_job.h"
#include "viz/models/studio_export.h"

namespace rammer::viz {
namespace {

TEST(SideJobReport, AFailedExportOrCompileTagsItsErrorsAndSaysSo) {
  SideJobReport exported = exportReport(ExportWritten{{ir::makeError("disk full")}, ""});
  EXPECT_FALSE(exported.ok);
  EXPECT_FALSE(exported.jobOk);
  ASSERT_EQ(exported.diagnostics.size(), 1u);
  EXPECT_EQ(stageOf(exported.diagnostics[0], PipelineStage::Import), PipelineStage::Export);
  ASSERT_EQ(exported.log.size(), 1u);
  EXPECT_EQ(exported.log[0].first, LogModel::Level::Error);
  EXPECT_TRUE(exported.log[0].second.startsWith("Export failed: ")) << exported.log[0].second.toStdString();
  EXPECT_TRUE(exported.message.contains("disk full"));

  NvrtcCompiled failed{{ir::makeError("ptxas: out of registers")}, nullptr};
  const SideJobReport compile = nvrtcReport(failed, false);
  EXPECT_FALSE(compile.ok);
  ASSERT_EQ(compile.diagnostics.size(), 1u);
  EXPECT_EQ(stageOf(compile.diagnostics[0], PipelineStage::Import), PipelineStage::Compile);
  EXPECT_TRUE(compile.log.at(0).second.startsWith("Compile with NVRTC failed: "));
  EXPECT_EQ(compile.plan, nullptr);
}

TEST(SideJobReport, ACompileAppliesItsPlanUnlessThePlanChangedMeanwhile) {
  auto code = std::make_shared<pipeline::CompiledCode>();
  code->version = "13.0";
  code->arch = "sm_90";
  code->programs.resize(2);
  code->programs[0].summary = "program 0: 64 registers";
  code->programs[1].summary = "program 1: 96 registers";
  code->plan = std::make_shared<schedule::Plan>();
  NvrtcCompiled out{{}, code};
  const SideJobReport applied = nvrtcReport(out, false);
  EXPECT_TRUE(applied.ok && applied.jobOk);
  EXPECT_EQ(applied.plan, code->plan);
  ASSERT_EQ(applied.log.size(), 3u);  // the compiler, then one line per program
  EXPECT_TRUE(applied.log[0].second.contains("sm_90"));
  EXPECT_EQ(applied.log[2].second, "program 1: 96 registers");

  const SideJobReport stale = nvrtcReport(out, true);
  EXPECT_FALSE(stale.ok);
  EXPECT_TRUE(stale.jobOk) << "the compile itself worked";
  EXPECT_EQ(stale.plan, nullptr);
  EXPECT_TRUE(stale.diagnostics.empty());
}

TEST(SideJobReport, AMeasuredTraceBecomesTheRunOrSaysWhyNot) {
  auto trace = std::make_shared<sim::Trace>();
  trace->source = "measured: H100";
  trace->totalUs = 123.45;
  trace->tasks.resize(3);
  OpenedMeasuredTrace opened{{}, trace, 2};
  const SideJobReport r = measuredTraceReport(opened, "cnn.trace.json", false);
  EXPECT_TRUE(r.ok && r.jobOk);
  ASSERT_NE(r.run, nullptr);
  EXPECT_EQ(r.run->label, "measured: H100 (cnn.trace.json)");
  EXPECT_EQ(r.run->trace, trace);
  ASSERT_EQ(r.log.size(), 2u);
  EXPECT_EQ(r.log[0].first, LogModel::Level::Warning);  // 2 rTasks left out
  EXPECT_TRUE(r.log[1].second.contains("123.5 us"));

  OpenedMeasuredTrace stale{{}, trace, 0};
  const SideJobReport changed = measuredTraceReport(stale, "cnn.trace.json", true);
  EXPECT_FALSE(changed.ok || changed.jobOk);
  EXPECT_EQ(changed.run, nullptr);

  OpenedMeasuredTrace other{{}, std::make_shared<sim::Trace>(), 7};
  const SideJobReport none = measuredTraceReport(other, "bert.trace.json", false);
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.run, nullptr);
  EXPECT_TRUE(none.log.at(0).second.contains("none of bert.trace.json's operators")) << none.log.at(0).second.toStdString();

  OpenedMeasuredTrace unreadable{{ir::makeError("not xz")}, nullptr, 0};
  const SideJobReport bad = measuredTraceReport(unreadable, "x.xz", false);
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(bad.log.at(0).second.contains("not xz"));
}

TEST(SideJob, EachJobSaysWhyItMayNotStartAndWhatItIsCalled) {
  const pipeline::Options options;
  pipeline::Artifacts none;  // no model opened
  EXPECT_EQ(exportJob(ExportKind::ScheduleJson, "", options, none).refusal, "no file or folder given");
  EXPECT_EQ(exportJob(ExportKind::CudaProject, "out", options, none).refusal, "there is no valid plan to export");
  EXPECT_EQ(exportJob(ExportKind::PredictedTrace, "p.json", options, none).refusal, "there is no predicted trace");
  EXPECT_EQ(exportJob(ExportKind::MeasuredTrace, "m.json", options, none).refusal,
            "nothing was run yet (Compile & Run first)");
  EXPECT_EQ(exportJob(ExportKind::GraphDot, "g.dot", options, none).refusal, "no model is loaded");
  EXPECT_EQ(nvrtcJob(options, none).refusal, "there is no valid plan to compile");
  const SideJob open = measuredTraceJob("/tmp/run.trace.json", none);
  EXPECT_EQ(open.title, "Open measured trace");
  EXPECT_TRUE(open.refusal.startsWith("open a model first"));
  EXPECT_FALSE(open.work) << "a refused job has no work";

  pipeline::Artifacts planned;
  planned.plan = std::make_shared<schedule::Plan>();
  planned.predicted = std::make_shared<sim::Trace>();
  const SideJob compile = nvrtcJob(options, planned);
  EXPECT_TRUE(compile.refusal.isEmpty());
  EXPECT_EQ(compile.stage, PipelineStage::Compile);
  EXPECT_EQ(compile.plan, planned.plan) << "its report asks whether this plan is still the session's";
  EXPECT_TRUE(compile.work);
  const SideJob opening = measuredTraceJob("/tmp/run.trace.json", planned);
  EXPECT_EQ(opening.what, "Opening run.trace.json");
  EXPECT_EQ(opening.stage, PipelineStage::Run);
  const SideJob exporting = exportJob(ExportKind::PredictedTrace, "/tmp/p.json", options, planned);
  EXPECT_TRUE(exporting.refusal.isEmpty());
  EXPECT_EQ(exporting.what, "Exporting p.json");
  EXPECT_EQ(exporting.title, "Export");
  EXPECT_TRUE(exporting.work);
}

}  // namespace
}  // namespace rammer::viz

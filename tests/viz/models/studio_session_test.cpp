// StudioSession end to end on real models: load -> plan -> predicted trace
// through the worker thread, policy and device changes, schedule edits that
// are applied or refused (the previous plan kept), cancel and supersede,
// malformed files, Compile & Run on the CPU emulator, exports. Waits are
// generous and nothing asserts on time.
#include "viz/models/studio_session.h"

#include <gtest/gtest.h>

#include <set>

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/runtime/nvrtc_compiler.h"
#include "core/sim/measured_trace.h"
#include "viz/models/diagnostics_model.h"
#include "viz/models/graph_display.h"
#include "viz/models/log_model.h"
#include "viz/models/metrics_model.h"

namespace rammer::viz {
namespace {

constexpr int kWaitMs = 120000;

QString sampleCnn() { return QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx"); }
QString lstmTc() { return QStringLiteral(RAMMER_BINARY_DIR "/samples/lstm_tc.onnx"); }

// A machine without a GPU, whatever this one has: the emulator path is
// what these tests check.
runtime::CudaCapability noGpu() {
  runtime::CudaCapability c;
  c.message = "no CUDA driver (test)";
  return c;
}

// Waits for the next jobFinished; returns its `ok`.
bool waitJob(StudioSession& s) {
  QSignalSpy done(&s, &StudioSession::jobFinished);
  if (!done.wait(kWaitMs)) {
    ADD_FAILURE() << "no jobFinished within " << kWaitMs << " ms";
    return false;
  }
  return done.takeFirst().at(1).toBool();
}

bool hasError(const std::vector<ir::Diagnostic>& ds, PipelineStage stage, const std::string& text = {}) {
  for (const auto& d : ds)
    if (d.severity == ir::Severity::Error && stageOf(d) == stage && d.message.find(text) != std::string::npos)
      return true;
  return false;
}

std::string allMessages(const std::vector<ir::Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += ir::formatDiagnostic(d) + "\n";
  return out;
}

size_t nonViewOps(const schedule::Plan& plan) {
  size_t n = 0;
  for (const auto& op : plan.ops) n += op.isView ? 0 : 1;
  return n;
}

const schedule::PlannedOp* findOp(const schedule::Plan& plan, const std::string& name) {
  for (const auto& op : plan.ops)
    if (op.name == name) return &op;
  return nullptr;
}

class StudioSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { session.setCapability(noGpu()); }
  void TearDown() override { session.waitForWorkers(); }

  void loadSampleCnn() {
    session.openModel(sampleCnn());
    ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
    ASSERT_TRUE(session.plan());
  }

  StudioSession session;
};

TEST_F(StudioSessionTest, LoadsSampleCnnWithBatchBoundToOneAndPredicts) {
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  QSignalSpy planned(&session, &StudioSession::planChanged);
  QSignalSpy traced(&session, &StudioSession::traceChanged);
  QSignalSpy busy(&session, &StudioSession::busyChanged);
  EXPECT_EQ(session.policy(), "wavefront");
  EXPECT_EQ(session.device(), "h100");

  EXPECT_NE(session.openModel(sampleCnn()), 0u);
  EXPECT_TRUE(session.isBusy());
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());

  EXPECT_FALSE(session.isBusy());
  ASSERT_EQ(loaded.count(), 1);
  EXPECT_EQ(loaded.first().first().toString(), sampleCnn());
  EXPECT_GE(planned.count(), 1);
  EXPECT_GE(traced.count(), 1);
  ASSERT_GE(busy.count(), 2);
  EXPECT_TRUE(busy.first().first().toBool());
  EXPECT_FALSE(busy.last().first().toBool());

  // The symbolic batch dim of the input is bound to 1.
  auto graph = session.graph();
  ASSERT_TRUE(graph);
  ASSERT_FALSE(graph->inputs().empty());
  const ir::TensorType& in = graph->value(graph->inputs().front()).type;
  ASSERT_TRUE(in.fullyKnown());
  EXPECT_EQ(in.shape.front(), 1);
  // The optimized graph is what gets scheduled: batch norms are folded away.
  for (size_t i = 0; i < graph->numNodeSlots(); ++i) {
    const ir::Node& node = graph->node(static_cast<ir::NodeId>(i));
    if (!node.removed) {
      EXPECT_NE(node.opType, "BatchNormalization") << node.name;
    }
  }
  EXPECT_FALSE(session.passLog().empty());

  auto plan = session.plan();
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->policy, "wavefront");
  EXPECT_EQ(plan->device.id, "h100");
  ASSERT_NE(findOp(*plan, "stem"), nullptr);
  auto trace = session.predictedTrace();
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->tasks.size(), plan->numRTasks());
  EXPECT_EQ(trace->programs.size(), plan->programs.size());
  EXPECT_GT(trace->totalUs, 0);
  EXPECT_EQ(session.diagnosticsModel()->count(ir::Severity::Error), 0);
  EXPECT_GT(session.log()->rowCount(), 0);
  ASSERT_NE(session.metricsModel()->find(QStringLiteral("Latency (us)")), nullptr);
  EXPECT_DOUBLE_EQ(*session.metricsModel()->find(QStringLiteral("Latency (us)"))->predicted, trace->totalUs);
}

TEST_F(StudioSessionTest, ChangingPolicyAndDeviceMakesNewPlans) {
  loadSampleCnn();
  const auto wavefront = session.plan();
  QSignalSpy planned(&session, &StudioSession::planChanged);

  EXPECT_NE(session.setPolicy(QStringLiteral("sequential")), 0u);
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  ASSERT_EQ(planned.count(), 1);
  auto sequential = session.plan();
  ASSERT_TRUE(sequential);
  EXPECT_NE(sequential, wavefront);
  EXPECT_EQ(sequential->policy, "sequential");
  // RammerBase: one program (kernel launch) per operator that has rTasks.
  EXPECT_EQ(sequential->programs.size(), nonViewOps(*sequential));
  EXPECT_EQ(session.predictedTrace()->programs.size(), sequential->programs.size());

  EXPECT_NE(session.setDevice(QStringLiteral("a100")), 0u);
  ASSERT_TRUE(waitJob(session));
  EXPECT_EQ(session.plan()->device.id, "a100");
  EXPECT_EQ(session.plan()->policy, "sequential");
  EXPECT_EQ(session.predictedTrace()->device, "a100");

  // The same setting again starts nothing.
  EXPECT_EQ(session.setDevice(QStringLiteral("a100")), 0u);
  EXPECT_FALSE(session.isBusy());
}

// IOS's variant re-plans only under the ios policy; with merges the plan
// carries its own graph, which graph() then gives the views.
TEST_F(StudioSessionTest, IosVariantMergesOperatorsAndTheViewsGetThePlansGraph) {
  session.openModel(QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/inception_block.onnx"));
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  EXPECT_EQ(session.setIosVariant(QStringLiteral("merge")), 0u);  // wavefront: nothing to re-plan
  EXPECT_EQ(session.iosVariant(), "merge");
  // The wavefront plans the graph with ReLUs in the convolutions' epilogues;
  // IOS merges plain Convs, so the switch optimizes the model again.
  EXPECT_EQ(session.optimizedFor(), schedule::PolicyId::Wavefront);
  EXPECT_TRUE(findOp(*session.plan(), "branch1x1.conv"));
  EXPECT_NE(session.setPolicy(QStringLiteral("ios")), 0u);
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  EXPECT_EQ(session.optimizedFor(), schedule::PolicyId::Ios);
  auto merged = session.plan();
  ASSERT_TRUE(merged && merged->graph);
  EXPECT_TRUE(findOp(*merged, "branch1x1.conv+branch5x5_1.conv+branch3x3dbl_1.conv"));
  EXPECT_EQ(session.graph(), merged->graph);
  for (const auto& op : merged->ops) EXPECT_EQ(session.graph()->node(op.node).name, op.name);

  EXPECT_NE(session.setIosVariant(QStringLiteral("parallel")), 0u);
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  ASSERT_TRUE(session.plan());
  EXPECT_FALSE(session.plan()->graph);
  EXPECT_FALSE(findOp(*session.plan(), "branch1x1.conv+branch5x5_1.conv+branch3x3dbl_1.conv"));
  EXPECT_TRUE(findOp(*session.plan(), "branch1x1.conv"));

  // An unknown variant is refused and the picker goes back to the plan's.
  EXPECT_NE(session.setIosVariant(QStringLiteral("sideways")), 0u);
  EXPECT_FALSE(waitJob(session));
  EXPECT_NE(allMessages(session.diagnostics()).find("unknown IOS variant 'sideways'"), std::string::npos);
  EXPECT_EQ(session.iosVariant(), "parallel");
}

// GraphTurbo's groups are nodes of the plan's own graph: the views get it,
// the decision log explains the groups, and the plan runs on the emulator.
TEST_F(StudioSessionTest, GraphTurboGroupsReachTheViewsAndRunOnTheEmulator) {
  session.openModel(QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/inception_block.onnx"));
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  EXPECT_NE(session.setPolicy(QStringLiteral("graphturbo")), 0u);
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  auto plan = session.plan();
  ASSERT_TRUE(plan && plan->graph);
  EXPECT_EQ(session.graph(), plan->graph);
  size_t groups = 0;
  for (const auto& op : plan->ops) {
    EXPECT_EQ(session.graph()->node(op.node).name, op.name);
    groups += op.opType == "FusedGroup";
  }
  EXPECT_GT(groups, 0u);
  bool explained = false;
  for (const auto& d : plan->decisions) explained = explained || d.rfind("graphturbo (budget ", 0) == 0;
  EXPECT_TRUE(explained);
  QSignalSpy ran(&session, &StudioSession::runFinished);
  EXPECT_NE(session.compileAndRun(), 0u);
  ASSERT_TRUE(ran.wait(kWaitMs));
  EXPECT_TRUE(ran.first().first().toBool()) << allMessages(session.diagnostics());
  EXPECT_EQ(session.runBackend(), RunBackend::Emulator);
}

// The session holds the pipeline's own values (issue #29 item 3): its
// settings are a pipeline::Options, its results a pipeline::Artifacts, and a
// request from Run hands those artifacts to the stages, which keep what they
// do not recompute.
TEST_F(StudioSessionTest, HoldsThePipelinesOptionsAndArtifacts) {
  loadSampleCnn();
  const pipeline::Artifacts& a = session.artifacts();
  EXPECT_EQ(a.original, session.originalGraph());
  EXPECT_EQ(a.optimized, session.optimized());
  EXPECT_EQ(a.plan, session.plan());
  EXPECT_EQ(a.predicted, session.predictedTrace());
  ASSERT_TRUE(a.validation);
  EXPECT_TRUE(a.validation->ok());
  EXPECT_EQ(session.options().modelPath, sampleCnn().toStdString());
  EXPECT_EQ(session.options().policy, schedule::PolicyId::Wavefront);
  EXPECT_EQ(session.options().run.target, RunTarget::Auto);
  EXPECT_TRUE(session.options().run.capability.has_value()) << "setCapability sets the run's options";

  session.setRunTarget(RunTarget::Emulator);
  EXPECT_EQ(session.options().run.target, RunTarget::Emulator);
  const auto plan = session.plan();
  const auto predicted = session.predictedTrace();
  QSignalSpy ran(&session, &StudioSession::runFinished);
  EXPECT_NE(session.compileAndRun(), 0u);
  ASSERT_TRUE(ran.wait(kWaitMs));
  ASSERT_TRUE(ran.first().first().toBool()) << allMessages(session.diagnostics());
  ASSERT_TRUE(session.artifacts().run);
  EXPECT_EQ(session.artifacts().run->backend, RunBackend::Emulator);
  EXPECT_EQ(session.artifacts().run->label, kEmulatedLabel);
  EXPECT_EQ(session.measuredTrace(), session.artifacts().run->trace);
  EXPECT_EQ(session.plan(), plan) << "a run keeps the plan it ran";
  EXPECT_EQ(session.predictedTrace(), predicted);

  session.setPolicy(QStringLiteral("sequential"));
  EXPECT_EQ(session.options().policy, schedule::PolicyId::Sequential);
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  EXPECT_EQ(session.plan()->policy, "sequential");
  EXPECT_FALSE(session.artifacts().run) << "a new plan drops the old plan's run";
}

TEST_F(StudioSessionTest, UnknownPolicyIsReportedAndThePlanAndPickerKept) {
  loadSampleCnn();
  const auto before = session.plan();
  QSignalSpy settings(&session, &StudioSession::settingsChanged);
  QSignalSpy planned(&session, &StudioSession::planChanged);
  // Refused at once, with the registry's list, before any work starts.
  EXPECT_EQ(session.setPolicy(QStringLiteral("fastest")), 0u);
  EXPECT_FALSE(session.isBusy());
  EXPECT_TRUE(hasError(session.diagnostics(), PipelineStage::Schedule, "unknown policy 'fastest'; policies: "))
      << allMessages(session.diagnostics());
  EXPECT_EQ(session.plan(), before);
  EXPECT_EQ(planned.count(), 0);
  // The picker stays on the policy of the plan on screen.
  EXPECT_EQ(session.policy(), "wavefront");
  EXPECT_GE(settings.count(), 1);
}

TEST_F(StudioSessionTest, DeviceFromAFileStaysAFileWhenALaterChangeFails) {
  loadSampleCnn();
  const QString file = QStringLiteral(RAMMER_SOURCE_DIR "/resources/devices/v100.json");
  session.setDevice(file);
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  EXPECT_EQ(session.plan()->device.id, "v100");
  session.setDevice(QStringLiteral("nosuch"));  // fails in the Schedule stage; the settings go back
  EXPECT_FALSE(waitJob(session));
  EXPECT_EQ(session.policy(), "wavefront");
  EXPECT_EQ(session.device(), file);
}

TEST_F(StudioSessionTest, ValidEditIsAppliedWithItsConstraints) {
  loadSampleCnn();
  ASSERT_NE(findOp(*session.plan(), "stem")->kernel.name, "conv_igemm_32x32");
  QSignalSpy applied(&session, &StudioSession::constraintsApplied);
  QSignalSpy rejected(&session, &StudioSession::constraintsRejected);
  schedule::Constraints c;
  c.kernelFor["stem"] = "conv_igemm_32x32";
  const quint64 request = session.setConstraints(c);
  EXPECT_NE(request, 0u);
  ASSERT_TRUE(applied.wait(kWaitMs)) << allMessages(session.diagnostics());
  EXPECT_EQ(applied.first().first().toULongLong(), request);
  EXPECT_EQ(rejected.count(), 0);
  const auto* stem = findOp(*session.plan(), "stem");
  ASSERT_NE(stem, nullptr);
  EXPECT_EQ(stem->kernel.name, "conv_igemm_32x32");
  EXPECT_EQ(stem->kernelRule, "pinned");
  EXPECT_EQ(session.constraints().kernelFor.at("stem"), "conv_igemm_32x32");
  EXPECT_FALSE(session.lastRejection());
  // A re-schedule keeps the edits.
  session.reschedule();
  ASSERT_TRUE(waitJob(session));
  EXPECT_EQ(findOp(*session.plan(), "stem")->kernel.name, "conv_igemm_32x32");
}

TEST_F(StudioSessionTest, UnsafeEditIsRefusedAndThePreviousPlanKept) {
  loadSampleCnn();
  const auto before = session.plan();
  const auto trace = session.predictedTrace();
  QSignalSpy applied(&session, &StudioSession::constraintsApplied);
  QSignalSpy rejected(&session, &StudioSession::constraintsRejected);
  QSignalSpy planned(&session, &StudioSession::planChanged);

  // pool1[0] pinned ahead of its producer stem[0] on the same vEU.
  schedule::Constraints c;
  c.pins.push_back({"pool1", 0, 0, 0});
  c.pins.push_back({"stem", 0, 0, 1});
  const quint64 request = session.setConstraints(c);
  ASSERT_TRUE(rejected.wait(kWaitMs));
  EXPECT_EQ(rejected.first().first().toULongLong(), request);
  EXPECT_EQ(applied.count(), 0);
  EXPECT_EQ(planned.count(), 0);
  EXPECT_EQ(session.plan(), before);
  EXPECT_EQ(session.predictedTrace(), trace);
  EXPECT_TRUE(session.constraints().empty());

  const auto& rejection = session.lastRejection();
  ASSERT_TRUE(rejection);
  EXPECT_EQ(rejection->request, request);
  EXPECT_EQ(rejection->constraints.pins.size(), 2u);
  ASSERT_FALSE(rejection->diagnostics.empty());
  EXPECT_NE(allMessages(rejection->diagnostics).find("before their producers"), std::string::npos)
      << allMessages(rejection->diagnostics);
  // The Diagnostics dock shows why.
  EXPECT_GT(session.diagnosticsModel()->count(ir::Severity::Error), 0);
  session.waitForWorkers();
  QCoreApplication::processEvents();
  EXPECT_FALSE(session.isBusy());
}

TEST_F(StudioSessionTest, EditNamingAnUnknownNodeIsRefused) {
  loadSampleCnn();
  const auto before = session.plan();
  QSignalSpy rejected(&session, &StudioSession::constraintsRejected);
  schedule::Constraints c;
  c.kernelFor["stem"] = "gemm_9x9";
  const quint64 request = session.setConstraints(c);
  ASSERT_TRUE(rejected.wait(kWaitMs));
  EXPECT_EQ(rejected.first().first().toULongLong(), request);
  EXPECT_NE(allMessages(session.lastRejection()->diagnostics).find("gemm_9x9"), std::string::npos);
  EXPECT_EQ(session.plan(), before);
}

TEST_F(StudioSessionTest, NewerEditSupersedesAndDropsTheOlder) {
  loadSampleCnn();
  QSignalSpy applied(&session, &StudioSession::constraintsApplied);
  QSignalSpy dropped(&session, &StudioSession::constraintsDropped);
  schedule::Constraints first;
  first.kernelFor["stem"] = "conv_igemm_32x32";
  schedule::Constraints second;
  second.cutBefore.insert("block.a");
  const quint64 a = session.setConstraints(first);
  const quint64 b = session.setConstraints(second);
  ASSERT_EQ(dropped.count(), 1);
  EXPECT_EQ(dropped.first().first().toULongLong(), a);
  ASSERT_TRUE(applied.wait(kWaitMs)) << allMessages(session.diagnostics());
  EXPECT_EQ(applied.first().first().toULongLong(), b);
  EXPECT_EQ(session.constraints().cutBefore.count("block.a"), 1u);
  EXPECT_TRUE(session.constraints().kernelFor.empty());
  session.waitForWorkers();
  QCoreApplication::processEvents();
  EXPECT_EQ(applied.count(), 1);
}

TEST_F(StudioSessionTest, CancelDuringALongLoadLeavesTheSessionUsable) {
  ASSERT_TRUE(std::filesystem::exists(lstmTc().toStdString())) << "run the sample generator (build/samples)";
  QSignalSpy cancelled(&session, &StudioSession::cancelled);
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  QSignalSpy finished(&session, &StudioSession::jobFinished);

  QSignalSpy progress(&session, &StudioSession::progress);
  EXPECT_NE(session.openModel(lstmTc()), 0u);
  EXPECT_TRUE(session.isBusy());
  // Cancel once the import is under way (the worker reports each stage as it starts).
  ASSERT_TRUE(progress.count() > 0 || progress.wait(kWaitMs));
  EXPECT_TRUE(progress.first().first().toString().startsWith(QStringLiteral("Importing")));
  session.cancel();
  // Cancel frees the session at once; the worker stops at its next check.
  EXPECT_EQ(cancelled.count(), 1);
  EXPECT_FALSE(session.isBusy());
  EXPECT_TRUE(session.modelPath().isEmpty());

  // Still usable: another model loads.
  loadSampleCnn();
  EXPECT_EQ(session.modelPath(), sampleCnn());
  // Whatever the cancelled worker finished is never applied.
  session.waitForWorkers();
  QCoreApplication::processEvents();
  QCoreApplication::processEvents();
  ASSERT_EQ(loaded.count(), 1);
  EXPECT_EQ(loaded.first().first().toString(), sampleCnn());
  EXPECT_EQ(session.modelPath(), sampleCnn());
  EXPECT_NE(findOp(*session.plan(), "stem"), nullptr);
  EXPECT_EQ(finished.count(), 1);
}

TEST_F(StudioSessionTest, NewerOpenSupersedesTheRunningOne) {
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  session.openModel(lstmTc());
  session.openModel(sampleCnn());
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  session.waitForWorkers();
  QCoreApplication::processEvents();
  ASSERT_EQ(loaded.count(), 1);
  EXPECT_EQ(session.modelPath(), sampleCnn());
}

TEST_F(StudioSessionTest, PolicyChangedWhileLoadingAppliesToTheLoad) {
  session.openModel(sampleCnn());
  session.setPolicy(QStringLiteral("sequential"));
  ASSERT_TRUE(waitJob(session)) << allMessages(session.diagnostics());
  EXPECT_EQ(session.modelPath(), sampleCnn());
  ASSERT_TRUE(session.plan());
  EXPECT_EQ(session.plan()->policy, "sequential");
}

TEST_F(StudioSessionTest, MalformedFileIsADiagnosticAndKeepsTheLoadedModel) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString junk = dir.filePath(QStringLiteral("junk.onnx"));
  {
    std::ofstream out(junk.toStdString(), std::ios::binary);
    out << "not a model\x01\x02\xff";
  }
  QSignalSpy failed(&session, &StudioSession::loadFailed);
  QSignalSpy loaded(&session, &StudioSession::modelLoaded);
  session.openModel(junk);
  EXPECT_FALSE(waitJob(session));
  ASSERT_EQ(failed.count(), 1);
  EXPECT_FALSE(failed.first().first().toString().isEmpty());
  EXPECT_EQ(loaded.count(), 0);
  EXPECT_TRUE(hasError(session.diagnostics(), PipelineStage::Import)) << allMessages(session.diagnostics());
  EXPECT_FALSE(session.hasModel());
  EXPECT_FALSE(session.plan());
  EXPECT_TRUE(session.modelPath().isEmpty());

  session.openModel(dir.filePath(QStringLiteral("missing.onnx")));
  EXPECT_FALSE(waitJob(session));
  EXPECT_TRUE(hasError(session.diagnostics(), PipelineStage::Import));

  // A failed open after a good one keeps the good one.
  loadSampleCnn();
  const auto plan = session.plan();
  session.openModel(junk);
  EXPECT_FALSE(waitJob(session));
  EXPECT_EQ(session.modelPath(), sampleCnn());
  EXPECT_EQ(session.plan(), plan);
}

TEST_F(StudioSessionTest, CompileAndRunWithoutAGpuEmulatesAndSaysSo) {
  loadSampleCnn();
  QSignalSpy ran(&session, &StudioSession::runFinished);
  QSignalSpy measured(&session, &StudioSession::measuredTraceChanged);
  EXPECT_NE(session.compileAndRun(), 0u);
  ASSERT_TRUE(ran.wait(kWaitMs));
  ASSERT_TRUE(ran.first().first().toBool()) << allMessages(session.diagnostics());
  EXPECT_GE(measured.count(), 1);
  EXPECT_EQ(session.runBackend(), RunBackend::Emulator);
  EXPECT_EQ(session.runLabel(), QString::fromLatin1(kEmulatedNoGpuLabel));
  auto trace = session.measuredTrace();
  ASSERT_TRUE(trace);
  EXPECT_EQ(trace->source, kEmulatedNoGpuLabel);
  EXPECT_FALSE(trace->measured);
  EXPECT_EQ(trace->tasks.size(), session.plan()->numRTasks());
  // The emulator computes the same outputs as the reference executor.
  bool checked = false;
  for (const auto& [name, value] : session.runMetrics())
    if (name == "max_abs_diff_vs_reference") {
      checked = true;
      EXPECT_LE(value, 1e-3);
    }
  EXPECT_TRUE(checked);
  // It says why it did not use a GPU.
  bool said = false;
  for (const auto& d : session.diagnostics())
    said |= d.severity == ir::Severity::Note &&
            d.message.find("CPU emulator") != std::string::npos &&
            d.message.find("no CUDA driver (test)") != std::string::npos;
  EXPECT_TRUE(said) << allMessages(session.diagnostics());
  EXPECT_EQ(session.metricsModel()->headerData(MetricsModel::MeasuredColumn, Qt::Horizontal).toString(),
            QString::fromLatin1(kEmulatedNoGpuLabel));

  // A new plan makes the run stale: it is cleared.
  session.setPolicy(QStringLiteral("sequential"));
  ASSERT_TRUE(waitJob(session));
  EXPECT_FALSE(session.measuredTrace());
  EXPECT_EQ(session.runBackend(), RunBackend::None);
}

// Compile with NVRTC (issue #27 item 1): no GPU needed; the plan's rKernels
// then carry the registers ptxas gave them, and the Log lists each program.
TEST_F(StudioSessionTest, CompileWithNvrtcPutsTheCompiledRegistersInThePlan) {
  if (!runtime::NvrtcCompiler::load()) GTEST_SKIP() << "NVRTC not found";
  loadSampleCnn();
  const auto before = session.plan();
  for (const auto& op : before->ops) EXPECT_FALSE(op.kernel.regsCompiled) << op.name;
  QSignalSpy compiled(&session, &StudioSession::nvrtcCompiled);
  QSignalSpy planChanged(&session, &StudioSession::planChanged);
  EXPECT_NE(session.compileWithNvrtc(), 0u);
  ASSERT_TRUE(compiled.wait(kWaitMs));
  ASSERT_TRUE(compiled.first().first().toBool()) << allMessages(session.diagnostics());
  EXPECT_EQ(planChanged.count(), 1);
  const auto after = session.plan();
  ASSERT_NE(after, before);
  ASSERT_EQ(after->ops.size(), before->ops.size());
  for (size_t i = 0; i < after->ops.size(); ++i) {
    if (after->ops[i].isView) continue;
    EXPECT_TRUE(after->ops[i].kernel.regsCompiled) << after->ops[i].name;
    EXPECT_EQ(after->ops[i].kernel.name, before->ops[i].kernel.name);  // the same plan
  }
  const QString log = session.log()->toPlainText();
  EXPECT_TRUE(log.contains("what ptxas gave each program")) << log.toStdString();
  EXPECT_TRUE(log.contains("registers")) << log.toStdString();
  // The pipeline's Compile stage caches by source: compiling the same plan
  // again takes NVRTC's earlier result and says so.
  EXPECT_NE(session.compileWithNvrtc(), 0u);
  ASSERT_TRUE(compiled.wait(kWaitMs));
  ASSERT_TRUE(compiled.last().first().toBool()) << allMessages(session.diagnostics());
  EXPECT_TRUE(session.log()->toPlainText().contains("taken from the cache")) << session.log()->toPlainText().toStdString();
}

// A committed H100 trace of sample_cnn opens beside the plan without a GPU
// (issue #28 item 4): its operators renumbered to the plan's by name; a
// file that is no trace, and a trace of another model, are refused and
// leave the measured trace as it was.
TEST_F(StudioSessionTest, AMeasuredTraceOpensBesideThePlan) {
  loadSampleCnn();
  const QString runs = QStringLiteral(RAMMER_SOURCE_DIR "/tests/data/gpu_traces/2026-11-26-h100/runs/");
  QSignalSpy opened(&session, &StudioSession::measuredOpened);
  QSignalSpy changed(&session, &StudioSession::measuredTraceChanged);
  EXPECT_NE(session.openMeasuredTrace(runs + "sample_cnn.wavefront.trace.json.xz"), 0u);
  ASSERT_TRUE(opened.wait(kWaitMs));
  ASSERT_TRUE(opened.takeFirst().first().toBool()) << session.log()->toPlainText().toStdString();
  EXPECT_EQ(changed.count(), 1);
  const auto m = session.measuredTrace();
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->measured);
  EXPECT_NEAR(m->totalUs, 102.8, 0.05);
  const auto file = sim::loadMeasuredTrace((runs + "sample_cnn.wavefront.trace.json.xz").toStdString());
  ASSERT_TRUE(file.ok());
  // The trace was measured on the unfused plan; this one has the ReLUs and
  // the residual add in the convolutions' epilogues. The rTasks of every
  // operator the plan has are laid beside it by name, the others left out
  // (and the log says so).
  const auto plan = session.plan();
  std::set<std::string> planned;
  for (const auto& op : plan->ops) planned.insert(op.name);
  size_t kept = 0;
  for (const auto& t : file->tasks) kept += planned.count(file->opNames[static_cast<size_t>(t.task.op)]);
  EXPECT_LT(kept, file->tasks.size());
  ASSERT_EQ(m->tasks.size(), kept);
  for (const auto& t : m->tasks) EXPECT_TRUE(planned.count(plan->ops[static_cast<size_t>(t.task.op)].name));
  EXPECT_TRUE(session.log()->toPlainText().contains(
      QStringLiteral("%1 rTasks of operators this plan lacks were left out").arg(file->tasks.size() - kept)))
      << session.log()->toPlainText().toStdString();
  EXPECT_TRUE(session.runLabel().contains("H100")) << session.runLabel().toStdString();

  QTemporaryDir dir;
  const QString chrome = dir.filePath(QStringLiteral("chrome.json"));
  std::ofstream(chrome.toStdString()) << R"({"traceEvents": []})";
  EXPECT_NE(session.openMeasuredTrace(chrome), 0u);
  ASSERT_TRUE(opened.wait(kWaitMs));
  EXPECT_FALSE(opened.takeFirst().first().toBool());
  EXPECT_TRUE(session.log()->toPlainText().contains("not a measured trace"));
  EXPECT_NE(session.openMeasuredTrace(runs + "inception_block.wavefront.trace.json.xz"), 0u);
  ASSERT_TRUE(opened.wait(kWaitMs));
  EXPECT_FALSE(opened.takeFirst().first().toBool());
  EXPECT_TRUE(session.log()->toPlainText().contains("another model"));
  EXPECT_EQ(session.measuredTrace(), m);  // unchanged by the refusals
}

TEST_F(StudioSessionTest, ExportsScheduleTraceAndGraph) {
  loadSampleCnn();
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  QSignalSpy exported(&session, &StudioSession::exportFinished);
  const auto plan = session.plan();

  const QString schedulePath = dir.filePath(QStringLiteral("schedule.json"));
  ASSERT_NE(session.exportTo(ExportKind::ScheduleJson, schedulePath), 0u);
  // One job at a time: a second export while busy is refused.
  EXPECT_EQ(session.exportTo(ExportKind::GraphDot, dir.filePath(QStringLiteral("x.dot"))), 0u);
  ASSERT_GE(exported.count(), 1);
  EXPECT_FALSE(exported.takeFirst().first().toBool());
  ASSERT_TRUE(exported.wait(kWaitMs));
  EXPECT_TRUE(exported.takeFirst().first().toBool());
  {
    std::ifstream in(schedulePath.toStdString());
    auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["policy"], "wavefront");
    ASSERT_EQ(j["programs"].size(), plan->programs.size());
    size_t rtasks = 0;
    for (const auto& p : j["programs"])
      for (const auto& stream : p["streams"])
        for (const auto& instr : stream) rtasks += instr.contains("rtask") ? 1 : 0;
    EXPECT_EQ(rtasks, plan->numRTasks());
    EXPECT_EQ(j["ops"].size(), plan->ops.size());
    EXPECT_TRUE(j["edits"].contains("edits"));
  }

  const QString tracePath = dir.filePath(QStringLiteral("trace.json"));
  ASSERT_NE(session.exportTo(ExportKind::PredictedTrace, tracePath), 0u);
  ASSERT_TRUE(exported.wait(kWaitMs));
  EXPECT_TRUE(exported.takeFirst().first().toBool());
  {
    std::ifstream in(tracePath.toStdString());
    auto j = nlohmann::json::parse(in);
    const auto& events = j.is_array() ? j : j["traceEvents"];
    size_t rtasks = 0;
    for (const auto& e : events)
      if (e.value("ph", "") == "X" && e.value("cat", "") != "barrier" && e.contains("args") &&
          e["args"].contains("rtask"))
        ++rtasks;
    EXPECT_EQ(rtasks, plan->numRTasks());
  }

  const QString dotPath = dir.filePath(QStringLiteral("graph.dot"));
  ASSERT_NE(session.exportTo(ExportKind::GraphDot, dotPath), 0u);
  ASSERT_TRUE(exported.wait(kWaitMs));
  EXPECT_TRUE(exported.takeFirst().first().toBool());
  {
    std::ifstream in(dotPath.toStdString());
    std::stringstream s;
    s << in.rdbuf();
    const std::string dot = s.str();
    EXPECT_EQ(dot.rfind("digraph", 0), 0u);
    size_t arrows = 0;
    for (size_t at = dot.find("->"); at != std::string::npos; at = dot.find("->", at + 2)) ++arrows;
    EXPECT_EQ(arrows, buildGraphDisplay(*session.graph()).edges.size());
    EXPECT_NE(dot.find("conv_igemm"), std::string::npos);  // the chosen rKernels are shown
  }

  // Nothing run yet: no measured trace to export.
  EXPECT_EQ(session.exportTo(ExportKind::MeasuredTrace, dir.filePath(QStringLiteral("m.json"))), 0u);
  EXPECT_FALSE(exported.takeFirst().first().toBool());
  // An unwritable path is an export error in the diagnostics.
  ASSERT_NE(session.exportTo(ExportKind::ScheduleJson, dir.filePath(QStringLiteral("no/such/dir/s.json"))), 0u);
  ASSERT_TRUE(exported.wait(kWaitMs));
  EXPECT_FALSE(exported.takeFirst().first().toBool());
  EXPECT_TRUE(hasError(session.diagnostics(), PipelineStage::Export));
}

TEST_F(StudioSessionTest, ExportsACudaProject) {
  loadSampleCnn();
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  QSignalSpy exported(&session, &StudioSession::exportFinished);
  const QString project = dir.filePath(QStringLiteral("cuda"));
  ASSERT_NE(session.exportTo(ExportKind::CudaProject, project), 0u);
  ASSERT_TRUE(exported.wait(kWaitMs));
  ASSERT_TRUE(exported.first().first().toBool()) << allMessages(session.diagnostics());
  for (const char* f : {"kernels.cu", "main.cu", "manifest.txt"})
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(project.toStdString()) / f)) << f;
}

TEST_F(StudioSessionTest, RequestsWithoutAModelStartNothing) {
  EXPECT_EQ(session.reschedule(), 0u);
  EXPECT_EQ(session.compileAndRun(), 0u);
  EXPECT_EQ(session.setPolicy(QStringLiteral("greedy")), 0u);
  EXPECT_EQ(session.policy(), "greedy");  // remembered for the next open
  QSignalSpy rejected(&session, &StudioSession::constraintsRejected);
  schedule::Constraints c;
  c.cutBefore.insert("x");
  session.setConstraints(c);
  EXPECT_EQ(rejected.count(), 1);
  EXPECT_FALSE(session.isBusy());
}

}  // namespace
}  // namespace rammer::viz

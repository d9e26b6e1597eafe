// A measured run's plan rebuilt from its committed trace (issue #28 items
// 2 and 3): every rTask on the program and vEU it ran on, in the order it
// ran, with the rKernel it ran; the plan valid; a trace this build cannot
// rebuild refused with the operator and rKernel named.
#include "core/sim/measured_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <vector>

#include "core/device/device_spec.h"
#include "core/schedule/dynamic_program.h"
#include "core/schedule/validator.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/measured_trace.h"
#include "tests/core/codegen/codegen_fixtures.h"

namespace rammer::sim {
namespace {

namespace fs = std::filesystem;

const fs::path kLease = fs::path(RAMMER_SOURCE_DIR) / "tests/data/gpu_traces/2026-11-26-h100/runs";

// The graph the lease's build planned: epilogues and RNN cells unfused.
ir::Graph leaseGraph(const std::string& sample) {
  return testing::optimizedSampleGraph(sample, {.fuseEpilogues = false, .fuseRecurrentCells = false});
}

schedule::PolicyOptions analyticOptions() { return policyOptions(std::make_shared<const AnalyticCostModel>()); }

// A run of a lease of this build's graph (epilogues fused), on the H100 preset.
struct LeaseRun {
  Trace measured;
  ir::Graph graph;
  device::DeviceSpec device;
};
LeaseRun leaseRun(const std::string& lease, const std::string& key) {
  auto measured = loadMeasuredTrace(fs::path(RAMMER_SOURCE_DIR) / "tests/data/gpu_traces" / lease / "runs" /
                                    (key + ".trace.json.xz"));
  if (!measured) throw std::runtime_error(measured.errorText());
  auto device = device::loadDevice("h100");
  if (!device) throw std::runtime_error(device.errorText());
  return {std::move(measured).value(),
          testing::optimizedSampleGraph(key.substr(0, key.find('.')), {.fuseEpilogues = true}),
          std::move(device).value()};
}

class MeasuredPlanOfSample : public ::testing::TestWithParam<std::string> {};

TEST_P(MeasuredPlanOfSample, PutsEveryRTaskWhereAndInTheOrderItRan) {
  const std::string key = GetParam();
  const std::string sample = key.substr(0, key.find('.'));
  auto measured = loadMeasuredTrace(kLease / (key + ".trace.json.xz"));
  ASSERT_TRUE(measured.ok()) << measured.errorText();
  const ir::Graph graph = leaseGraph(sample);
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device.ok());
  auto plan = planOfMeasuredTrace(*measured, graph, *device, analyticOptions());
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  EXPECT_EQ(plan->policy, "measured");
  ASSERT_EQ(plan->programs.size(), measured->programs.size());
  const auto problems = schedule::validate(*plan, graph);
  EXPECT_TRUE(problems.empty()) << problems.front().message;

  // Per program and vEU, the rTasks in stream order against the trace's
  // in start order; the rKernel of each op is the one that ran.
  std::map<std::pair<int32_t, int32_t>, std::vector<std::string>> built, ran;
  for (size_t p = 0; p < plan->programs.size(); ++p) {
    const schedule::RProgram& prog = plan->programs[p].program;
    EXPECT_EQ(prog.numVEUs(), measured->programs[p].numVEUs);
    EXPECT_EQ(plan->programs[p].veusPerSM, measured->programs[p].veusPerSM);
    for (int v = 0; v < prog.numVEUs(); ++v)
      for (const schedule::Instr& in : prog.stream(v))
        if (const auto* e = std::get_if<schedule::Exec>(&in)) {
          const schedule::PlannedOp& op = plan->ops[static_cast<size_t>(e->task.op)];
          built[{static_cast<int32_t>(p), v}].push_back(op.name + "[" + std::to_string(e->task.rtask) + "] " +
                                                        op.kernel.name);
        }
  }
  std::vector<const TaskEvent*> byStart;
  for (const TaskEvent& e : measured->tasks) byStart.push_back(&e);
  std::stable_sort(byStart.begin(), byStart.end(),
                   [](const TaskEvent* a, const TaskEvent* b) { return a->startUs < b->startUs; });
  for (const TaskEvent* e : byStart)
    ran[{e->program, e->veu}].push_back(measured->opNames[static_cast<size_t>(e->task.op)] + "[" +
                                        std::to_string(e->task.rtask) + "] " +
                                        measured->kernelNames[static_cast<size_t>(e->task.op)]);
  EXPECT_EQ(built, ran);
  EXPECT_EQ(plan->numRTasks(), measured->tasks.size());
}

INSTANTIATE_TEST_SUITE_P(CommittedRuns, MeasuredPlanOfSample,
                         ::testing::Values("sample_cnn.sequential", "sample_cnn.wavefront", "inception_block.wavefront",
                                           "inception_block.greedy", "nasbench_cells.wavefront"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '.', '_');
                           return n;
                         });

TEST(MeasuredPlan, RefusesWhatThisBuildCannotRebuild) {
  auto measured = loadMeasuredTrace(kLease / "sample_cnn.wavefront.trace.json.xz");
  ASSERT_TRUE(measured.ok()) << measured.errorText();
  const ir::Graph graph = leaseGraph("sample_cnn");
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device.ok());

  Trace renamed = *measured;
  renamed.kernelNames[0] = "gemm_999x999";
  auto a = planOfMeasuredTrace(renamed, graph, *device, analyticOptions());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.errorText().find("ran rKernel 'gemm_999x999'"), std::string::npos) << a.errorText();
  EXPECT_NE(a.errorText().find("does not offer"), std::string::npos) << a.errorText();

  Trace other = *measured;
  other.opNames[0] = "no_such_node";
  auto b = planOfMeasuredTrace(other, graph, *device, analyticOptions());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.errorText().find("'no_such_node' of the trace is not in the graph"), std::string::npos) << b.errorText();

  Trace wide = *measured;  // a persistent program wider than the device: no run does that
  wide.programs.front().numVEUs = 100000;
  auto w = planOfMeasuredTrace(wide, graph, *device, analyticOptions());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.errorText().find("more than h100 holds, and more than one operator"), std::string::npos) << w.errorText();

  Trace partial = *measured;  // one operator's rTasks lost
  const int32_t lost = partial.tasks.front().task.op;
  std::erase_if(partial.tasks, [lost](const TaskEvent& e) { return e.task.op == lost; });
  auto c = planOfMeasuredTrace(partial, graph, *device, analyticOptions());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.errorText().find("has no rTask in the trace"), std::string::npos) << c.errorText();
}

// A RammerBase kernel launches one block per rTask: alexnet's conv2 ran 432
// blocks at 2 per SM on 132 SMs (2026-11-27 lease, this build's graph).
// The plan keeps the 264 slots and gives each rTask the slot that freed
// first, so no slot runs two rTasks at once.
TEST(MeasuredPlan, ARammerBaseGridLargerThanTheSlotsRunsInWaves) {
  const LeaseRun run = leaseRun("2026-11-27-h100", "alexnet.sequential");
  const Trace& measured = run.measured;
  const ir::Graph& graph = run.graph;
  const device::DeviceSpec& device = run.device;
  auto plan = planOfMeasuredTrace(measured, graph, device, analyticOptions());
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  EXPECT_TRUE(schedule::validate(*plan, graph).empty());
  EXPECT_EQ(plan->numRTasks(), measured.tasks.size());
  bool waves = false;
  for (size_t p = 0; p < plan->programs.size(); ++p) {
    const schedule::RProgram& prog = plan->programs[p].program;
    const int slots = measured.programs[p].veusPerSM * device.sms;
    EXPECT_EQ(prog.numVEUs(), std::min(measured.programs[p].numVEUs, slots));
    waves = waves || measured.programs[p].numVEUs > slots;
  }
  EXPECT_TRUE(waves) << "the trace has no program with more blocks than slots";
  // No slot runs two rTasks at once: on each vEU the measured intervals of
  // its rTasks, in stream order, do not overlap.
  std::map<std::pair<int32_t, int32_t>, const TaskEvent*> byTask;
  for (const TaskEvent& e : measured.tasks) byTask[{e.task.op, e.task.rtask}] = &e;
  for (size_t p = 0; p < plan->programs.size(); ++p) {
    const schedule::RProgram& prog = plan->programs[p].program;
    for (int v = 0; v < prog.numVEUs(); ++v) {
      double end = -1;
      for (const schedule::Instr& in : prog.stream(v))
        if (const auto* x = std::get_if<schedule::Exec>(&in)) {
          const std::string name = plan->ops[static_cast<size_t>(x->task.op)].name;
          const auto at = std::find(measured.opNames.begin(), measured.opNames.end(), name);
          ASSERT_NE(at, measured.opNames.end()) << name;
          const TaskEvent* e = byTask.at({static_cast<int32_t>(at - measured.opNames.begin()), x->task.rtask});
          EXPECT_GE(e->startUs, end) << name << " on vEU " << v << " of program " << p;
          end = e->endUs;
        }
    }
  }
}

// A dynamic run (2026-11-27b lease, the ready queue of this build) rebuilt
// both ways: replayed, each rTask on the vEU that took it, in the order it
// took them; as its queue, one dynamic program per launch with the
// measured rKernels, vDevice and the same rTasks, valid for the validator.
TEST(MeasuredPlan, ADynamicRunIsReplayedWhereItRanAndRebuiltAsItsQueue) {
  const LeaseRun run = leaseRun("2026-11-27b-h100", "inception_block.dynamic");
  const Trace& measured = run.measured;
  const ir::Graph& graph = run.graph;
  const device::DeviceSpec& device = run.device;
  auto replay = planOfMeasuredTrace(measured, graph, device, analyticOptions());
  ASSERT_TRUE(replay.ok()) << replay.errorText();
  EXPECT_TRUE(schedule::validate(*replay, graph).empty());
  ASSERT_EQ(replay->programs.size(), 1u);
  EXPECT_FALSE(replay->programs[0].dynamic);
  std::map<std::string, int32_t> veuOf;  // "op[rtask]" -> vEU
  for (const TaskEvent& e : measured.tasks)
    veuOf[measured.opNames[static_cast<size_t>(e.task.op)] + "[" + std::to_string(e.task.rtask) + "]"] = e.veu;
  const schedule::RProgram& prog = replay->programs[0].program;
  size_t checked = 0;
  for (int v = 0; v < prog.numVEUs(); ++v)
    for (const schedule::Instr& in : prog.stream(v))
      if (const auto* x = std::get_if<schedule::Exec>(&in)) {
        const std::string key =
            replay->ops[static_cast<size_t>(x->task.op)].name + "[" + std::to_string(x->task.rtask) + "]";
        EXPECT_EQ(veuOf.at(key), v) << key;
        ++checked;
      }
  EXPECT_EQ(checked, measured.tasks.size());

  auto queue = planOfMeasuredTrace(measured, graph, device, analyticOptions(), MeasuredPlanForm::Dynamic);
  ASSERT_TRUE(queue.ok()) << queue.errorText();
  const auto problems = schedule::validate(*queue, graph);
  EXPECT_TRUE(problems.empty()) << problems.front().message;
  ASSERT_EQ(queue->programs.size(), 1u);
  ASSERT_TRUE(queue->programs[0].dynamic);
  EXPECT_TRUE(schedule::checkDynamicProgram(*queue, 0).empty());
  EXPECT_EQ(queue->programs[0].program.numVEUs(), measured.programs[0].numVEUs);
  EXPECT_EQ(queue->programs[0].veusPerSM, measured.programs[0].veusPerSM);
  EXPECT_EQ(queue->numRTasks(), measured.tasks.size());
  for (const schedule::DynamicOp& d : queue->programs[0].dynamic->ops) {
    const schedule::PlannedOp& op = queue->ops[static_cast<size_t>(d.op)];
    const auto at = std::find(measured.opNames.begin(), measured.opNames.end(), op.name);
    ASSERT_NE(at, measured.opNames.end()) << op.name;
    EXPECT_EQ(op.kernel.name, measured.kernelNames[static_cast<size_t>(at - measured.opNames.begin())]);
  }
}

// The fifth lease's alexnet wavefront plan ran fc1 (M = 1) as
// gemm_32x32_splitk4 at 4 vEUs/SM: a 32-row tile for one row, 190 us per
// rTask where the family's efficiency had predicted 133 us, so the planner
// had preferred it (one wave of 512 rTasks) to the GEMV (two waves of 90
// us predicted, 47 us measured). Priced with the H100's skinny-tile
// efficiency (kernels/kernel_efficiency.h), the analytic model lands
// within 10% of the measurement, and this build's wavefront plan takes the
// GEMV for fc1 and fc2.
TEST(MeasuredPlan, TheAnalyticModelPricesASkinnyTileAsTheLeaseMeasuredIt) {
  const LeaseRun run = leaseRun("2026-11-27b-h100", "alexnet.wavefront");
  auto replay = planOfMeasuredTrace(run.measured, run.graph, run.device, analyticOptions());
  ASSERT_TRUE(replay.ok()) << replay.errorText();
  const auto fc1 = std::find_if(replay->ops.begin(), replay->ops.end(),
                                [](const schedule::PlannedOp& o) { return o.name == "classifier.fc1"; });
  ASSERT_NE(fc1, replay->ops.end());
  ASSERT_EQ(fc1->kernel.name, "gemm_32x32_splitk4");
  const auto at = std::find(run.measured.opNames.begin(), run.measured.opNames.end(), "classifier.fc1");
  ASSERT_NE(at, run.measured.opNames.end());
  std::vector<double> us;
  int veusPerSM = 0, veus = 0;
  for (const TaskEvent& e : run.measured.tasks)
    if (e.task.op == static_cast<int32_t>(at - run.measured.opNames.begin())) {
      us.push_back(e.endUs - e.startUs);
      veusPerSM = run.measured.programs.at(static_cast<size_t>(e.program)).veusPerSM;
      veus = run.measured.programs.at(static_cast<size_t>(e.program)).numVEUs;
    }
  ASSERT_EQ(us.size(), 512u);
  std::sort(us.begin(), us.end());
  const double measured = us[us.size() / 2];
  EXPECT_GT(measured, 150.0);
  const double predicted = AnalyticCostModel().taskTimeUs(fc1->kernel, run.device, {veusPerSM, veusPerSM, veus, 0});
  EXPECT_NEAR(predicted, measured, 0.10 * measured) << "veus/SM " << veusPerSM;

  // As `rammer schedule` plans it: with the analytic model's estimates.
  auto plan = schedule::makePolicy("wavefront", analyticOptions()).value()->schedule(run.graph, run.device, {});
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  for (const schedule::PlannedOp& o : plan->ops)
    if (o.name == "classifier.fc1" || o.name == "classifier.fc2") EXPECT_EQ(o.kernel.family, "gemv") << o.name;
}

}  // namespace
}  // namespace rammer::sim

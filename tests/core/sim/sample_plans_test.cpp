// Properties of simulated traces of real plans: the committed sample models
// and a stacked-LSTM-like grid, under every policy. Every rTask runs once,
// never before its producers end, vEUs run their streams back to back, and
// each barrier ends when the last slot it waits for completes plus the
// barrier overhead.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"
#include "tests/core/schedule/schedule_fixtures.h"
#include "tests/support/param_names.h"

using namespace rammer;
namespace rt = rammer::testing;

namespace {

ir::Graph optimizedSample(const std::string& name) {
  onnx_import::ImportOptions o;
  o.batch = 1;
  auto g = onnx_import::importModel(std::string(RAMMER_SOURCE_DIR) + "/samples/models/" + name + ".onnx", o);
  EXPECT_TRUE(g.ok()) << g.errorText();
  if (!g.ok()) return {};
  passes::PassContext ctx;
  auto r = passes::standardPipeline().run(*g, ctx);
  EXPECT_TRUE(r.ok()) << r.errorText();
  return std::move(g).value();
}

using SlotKey = std::tuple<int32_t, int32_t, int32_t>;  // program, vEU, order

void checkTrace(const schedule::Plan& plan, const sim::Trace& t, const sim::CostModel& model) {
  const double launch = model.launchOverheadUs(plan.device);
  const double barrier = model.barrierOverheadUs(plan.device);

  // Every rTask once.
  ASSERT_EQ(t.tasks.size(), plan.numRTasks());
  std::set<schedule::RTask> seen;
  for (const auto& e : t.tasks) EXPECT_TRUE(seen.insert(e.task).second) << "twice: op " << e.task.op;
  for (size_t op = 0; op < plan.ops.size(); ++op) {
    if (plan.ops[op].isView) continue;
    for (int64_t r = 0; r < plan.ops[op].kernel.numRTasks; ++r)
      EXPECT_TRUE(seen.count({static_cast<int32_t>(op), r})) << plan.ops[op].name << "[" << r << "] missing";
  }

  // No rTask starts before every rTask of its producers has ended; rTask
  // times never exceed the model's busy-device time (what policies plan with).
  std::vector<double> opEnd(plan.ops.size(), 0.0);
  for (const auto& e : t.tasks) opEnd[static_cast<size_t>(e.task.op)] = std::max(opEnd[static_cast<size_t>(e.task.op)], e.endUs);
  for (const auto& e : t.tasks) {
    const auto& op = plan.ops[static_cast<size_t>(e.task.op)];
    for (int32_t p : op.producers)
      EXPECT_GE(e.startUs, opEnd[static_cast<size_t>(p)]) << op.name << "[" << e.task.rtask << "] before " << plan.ops[p].name;
    const int perSM = plan.programs[static_cast<size_t>(e.program)].veusPerSM;
    EXPECT_LE(e.endUs - e.startUs, model.taskTimeUs(op.kernel, plan.device, {perSM, 0, 0}) + 1e-9) << op.name;
    EXPECT_GE(e.endUs, e.startUs);
  }

  // Each vEU runs its stream back to back from its program's launch.
  std::map<SlotKey, std::pair<double, double>> slot;  // start, end
  for (const auto& e : t.tasks) slot[{e.program, e.veu, e.order}] = {e.startUs, e.endUs};
  for (const auto& b : t.barriers) slot[{b.program, b.veu, b.order}] = {b.startUs, b.endUs};
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const auto& prog = plan.programs[p].program;
    for (int v = 0; v < prog.numVEUs(); ++v) {
      double clock = t.programs[p].startUs + launch;
      for (size_t o = 0; o < prog.stream(v).size(); ++o) {
        auto it = slot.find({static_cast<int32_t>(p), v, static_cast<int32_t>(o)});
        ASSERT_NE(it, slot.end()) << "program " << p << " vEU " << v << " order " << o << " not in the trace";
        EXPECT_DOUBLE_EQ(it->second.first, clock);
        clock = it->second.second;
        EXPECT_LE(clock, t.programs[p].endUs);
      }
    }
  }

  // Barriers end at max(arrival, last waited slot's completion + B).
  ASSERT_EQ(t.barriers.size(), [&] {
    size_t n = 0;
    for (const auto& p : plan.programs) n += p.program.numBarriers();
    return n;
  }());
  for (const auto& b : t.barriers) {
    const auto& instr = plan.programs[static_cast<size_t>(b.program)].program.stream(b.veu)[static_cast<size_t>(b.order)];
    ASSERT_TRUE(std::holds_alternative<schedule::Barrier>(instr));
    double latest = -1;
    for (const auto& w : std::get<schedule::Barrier>(instr).waits)
      latest = std::max(latest, slot.at({b.program, w.veu, w.order}).second);
    EXPECT_DOUBLE_EQ(b.endUs, std::max(b.startUs, latest + barrier));
    EXPECT_DOUBLE_EQ(slot.at({b.program, b.lastSlot.veu, b.lastSlot.order}).second, latest);
  }

  // Programs one after another; totals.
  double end = 0;
  for (size_t p = 0; p < t.programs.size(); ++p) {
    EXPECT_DOUBLE_EQ(t.programs[p].startUs, end);
    end = t.programs[p].endUs;
  }
  EXPECT_DOUBLE_EQ(t.totalUs, end);
  double lastTask = 0;
  for (const auto& e : t.tasks) lastTask = std::max(lastTask, e.endUs);
  EXPECT_LE(lastTask, t.totalUs);
  EXPECT_GT(t.smEfficiency, 0.0);
  EXPECT_LE(t.smEfficiency, 1.0);
  EXPECT_NEAR(t.smEfficiency, sim::computeSmEfficiency(t.tasks, t.sms, t.totalUs), 1e-9);
}

class SimSamplePlans : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

}  // namespace

TEST_P(SimSamplePlans, TraceIsConsistentWithThePlan) {
  const auto& [model, policyName] = GetParam();
  const ir::Graph g = optimizedSample(model);
  auto cost = std::make_shared<sim::AnalyticCostModel>();
  auto policy = schedule::makePolicy(policyName, sim::policyOptions(cost));
  ASSERT_TRUE(policy.ok());
  auto plan = (*policy)->schedule(g, device::presetDevice("h100").value(), {});
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  auto trace = sim::Simulator(cost).run(*plan);
  ASSERT_TRUE(trace.ok()) << trace.errorText();
  checkTrace(*plan, *trace, *cost);
}

INSTANTIATE_TEST_SUITE_P(Samples, SimSamplePlans,
                         ::testing::Combine(::testing::Values("sample_cnn", "inception_block", "nasbench_cells"),
                                            ::testing::Values("sequential", "wavefront", "greedy", "ios")),
                         rammer::testing::ParamName());

TEST(SimSamplePlans, GridOfCellsUnderEveryPolicy) {
  // 4 layers x 6 steps, 40 rTasks per cell on 2 SMs: programs full of barriers.
  const ir::Graph g = rt::gridGraph(4, 6);
  rt::FakeLibrary lib;
  lib.defaultTasks = 40;
  auto cost = std::make_shared<sim::AnalyticCostModel>();
  for (const auto& name : schedule::policyNames()) {
    auto options = lib.options();
    options.taskTime = sim::taskTimeFn(cost);
    auto plan = schedule::makePolicy(name, options).value()->schedule(g, rt::smallDevice(2), {});
    ASSERT_TRUE(plan.ok()) << name << ": " << plan.errorText();
    auto trace = sim::Simulator(cost).run(*plan);
    ASSERT_TRUE(trace.ok()) << name << ": " << trace.errorText();
    SCOPED_TRACE(name);
    checkTrace(*plan, *trace, *cost);
  }
}

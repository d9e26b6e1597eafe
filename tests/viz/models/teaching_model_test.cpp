// Teaching mode's model (issue #17 item 2): the steps of how a policy built
// its plan, each with what it placed where and why, checked against the
// plan itself; navigation; the trace as built so far.
#include "viz/models/teaching_model.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <numeric>
#include <set>
#include <variant>

#include "tests/support/plan_mutation.h"
#include "tests/viz/editing_fixtures.h"

namespace rammer::viz {
namespace {

PipelineResult planInception(const std::string& policy) {
  PipelineRequest q;
  q.from = PipelineStage::Import;
  q.to = PipelineStage::Simulate;
  q.options = studioOptions(RAMMER_SOURCE_DIR "/samples/models/inception_block.onnx", {.policy = schedule::parsePolicy(policy).value()});
  PipelineResult r = runPipeline(q, {});
  EXPECT_TRUE(r.ok());
  return r;
}

size_t barriersOf(const schedule::Plan& plan) {
  size_t n = 0;
  for (const auto& p : plan.programs)
    for (int v = 0; v < p.program.numVEUs(); ++v)
      for (const auto& in : p.program.stream(v)) n += std::holds_alternative<schedule::Barrier>(in);
  return n;
}

TEST(TeachingSteps, WavefrontWaveByWaveWithItsNumbers) {
  const PipelineResult r = planInception("wavefront");
  ASSERT_TRUE(r.artifacts.plan);
  const std::vector<TeachingStep> steps = teachingSteps(*r.artifacts.plan);
  ASSERT_EQ(steps.size(), r.artifacts.plan->steps.size());
  // Every rTask and every barrier-rTask belongs to exactly one step.
  int64_t rtasks = 0;
  size_t barriers = 0;
  for (const TeachingStep& s : steps) {
    rtasks += s.rtasks;
    barriers += static_cast<size_t>(s.barriers);
  }
  EXPECT_EQ(rtasks, static_cast<int64_t>(r.artifacts.plan->numRTasks()));
  EXPECT_EQ(barriers, barriersOf(*r.artifacts.plan));
  EXPECT_EQ(steps[0].barriers, 0) << "the first wave waits for nothing";
  EXPECT_GT(steps[1].barriers, 0) << "the second wave waits for the first";

  const TeachingStep& wave0 = steps[0];
  EXPECT_EQ(wave0.title, "wave 0");
  ASSERT_EQ(wave0.choices.size(), 4u);
  EXPECT_EQ(wave0.programs, std::vector<int>({0}));
  EXPECT_GT(wave0.veus, 0);
  for (const TeachingChoice& c : wave0.choices) {
    ASSERT_GE(c.fastest, 0);
    ASSERT_GE(c.mostEfficient, 0);
    // 290 rTasks with the fastest rKernels exceed the 264 vEUs (2 per SM:
    // the convolutions run at 128 registers).
    EXPECT_EQ(c.rule, "most efficient");
    EXPECT_EQ(c.kernel, c.options[static_cast<size_t>(c.mostEfficient)].kernel);
    // The explanation names every candidate with its numbers.
    for (const schedule::KernelOption& o : c.options) {
      EXPECT_NE(wave0.explanation.find(o.kernel + ": " + std::to_string(o.rtasks) + " rTasks"), std::string::npos)
          << wave0.explanation;
    }
  }
  // Why the rule picked what it picked, in words.
  for (const TeachingStep& s : steps)
    for (const TeachingChoice& c : s.choices) {
      if (c.options.size() < 2) continue;
      const char* why = c.fastest == c.mostEfficient ? "also the most efficient"
                        : c.rule == "fastest"        ? "The fastest wins"
                                                     : "The most efficient wins";
      EXPECT_NE(s.explanation.find(why), std::string::npos) << c.name << ":\n" << s.explanation;
    }
  EXPECT_NE(wave0.explanation.find(std::to_string(wave0.veus) + " vEUs of rProgram 0"), std::string::npos);
  EXPECT_NE(wave0.explanation.find("first program"), std::string::npos) << "the policy's own line";
}

TEST(TeachingSteps, TheTraceSoFarGrowsStepByStep) {
  const PipelineResult r = planInception("wavefront");
  ASSERT_TRUE(r.artifacts.plan && r.artifacts.predicted);
  const auto steps = teachingSteps(*r.artifacts.plan);
  const auto stepOf = stepOfOps(*r.artifacts.plan, steps);
  size_t previous = 0;
  for (int last = 0; last < static_cast<int>(steps.size()); ++last) {
    const sim::Trace t = traceUpTo(*r.artifacts.predicted, stepOf, last);
    EXPECT_GE(t.tasks.size(), previous);
    previous = t.tasks.size();
    for (const sim::TaskEvent& e : t.tasks) EXPECT_LE(stepOf[static_cast<size_t>(e.task.op)], last);
  }
  const sim::Trace all = traceUpTo(*r.artifacts.predicted, stepOf, static_cast<int>(steps.size()) - 1);
  EXPECT_EQ(all.tasks.size(), r.artifacts.predicted->tasks.size());
  EXPECT_EQ(all.barriers.size(), r.artifacts.predicted->barriers.size());
  EXPECT_TRUE(traceUpTo(*r.artifacts.predicted, stepOf, 0).barriers.empty());
}

// A dynamic plan's policy placed no rTask: with a trace, its run is
// explained as dispatch decisions, one operator at a time in the order its
// first rTask was taken; without one, the planning steps say the queue
// places them.
TEST(TeachingSteps, ADynamicRunIsASequenceOfDispatchDecisions) {
  const PipelineResult r = planInception("dynamic");
  ASSERT_TRUE(r.artifacts.plan && r.artifacts.predicted);
  const schedule::Plan& plan = *r.artifacts.plan;
  ASSERT_TRUE(plan.programs[0].dynamic);
  const sim::Trace& trace = *r.artifacts.predicted;
  const std::vector<TeachingStep> steps = teachingSteps(plan, &trace);
  const size_t ops = plan.programs[0].dynamic->ops.size();
  ASSERT_EQ(steps.size(), ops + 1) << "an introduction, then one step per operator";
  EXPECT_NE(steps[0].explanation.find("ready queue"), std::string::npos) << steps[0].explanation;
  EXPECT_NE(steps[0].explanation.find("Each take costs a vEU"), std::string::npos) << steps[0].explanation;
  EXPECT_NE(steps[0].explanation.find("that every vEU contends for"), std::string::npos) << steps[0].explanation;
  // With claim shards the take is explained as a claim on one of them.
  const schedule::Plan sharded =
      rammer::testing::withDynamicEdit(plan, 0, [](schedule::DynamicProgram& d) { d.claimShards = 8; });
  const std::string shardedIntro = teachingSteps(sharded, &trace).at(0).explanation;
  EXPECT_NE(shardedIntro.find("on one of 8 claim shards"), std::string::npos) << shardedIntro;
  EXPECT_EQ(shardedIntro.find("every vEU contends"), std::string::npos) << shardedIntro;
  int64_t rtasks = 0;
  double lastFirstTake = -1;
  std::set<int32_t> seen;
  for (size_t i = 1; i < steps.size(); ++i) {
    const TeachingStep& s = steps[i];
    ASSERT_EQ(s.ops.size(), 1u);
    const int32_t op = s.ops[0];
    EXPECT_TRUE(seen.insert(op).second) << "an operator twice";
    rtasks += s.rtasks;
    // The step's numbers are the trace's.
    double firstTake = 1e300;
    std::set<int32_t> veus;
    int64_t n = 0;
    for (const sim::TaskEvent& e : trace.tasks)
      if (e.task.op == op) firstTake = std::min(firstTake, e.startUs), veus.insert(e.veu), ++n;
    EXPECT_EQ(s.rtasks, n);
    EXPECT_EQ(s.veus, static_cast<int>(veus.size()));
    EXPECT_GE(firstTake, lastFirstTake) << "steps follow the first takes";
    lastFirstTake = firstTake;
    EXPECT_NE(s.explanation.find("entered the ready queue"), std::string::npos) << s.explanation;
    EXPECT_NE(s.explanation.find("took its " + std::to_string(n) + " rTasks"), std::string::npos) << s.explanation;
    EXPECT_NE(s.explanation.find("runs as rKernel " + plan.ops[static_cast<size_t>(op)].kernel.name), std::string::npos);
    // An operator with a producer names the one whose last rTask opened its gate.
    const auto& producers = plan.ops[static_cast<size_t>(op)].producers;
    if (producers.empty())
      EXPECT_NE(s.explanation.find("queued at launch"), std::string::npos) << s.explanation;
    else
      EXPECT_NE(s.explanation.find("opened its gate"), std::string::npos) << s.explanation;
  }
  EXPECT_EQ(rtasks, static_cast<int64_t>(plan.numRTasks()));
  // The timeline so far holds the operators dispatched so far.
  const auto stepOf = stepOfOps(plan, steps);
  EXPECT_TRUE(traceUpTo(trace, stepOf, 0).tasks.empty());
  EXPECT_EQ(traceUpTo(trace, stepOf, static_cast<int>(steps.size()) - 1).tasks.size(), trace.tasks.size());

  // No trace: the policy's steps, with the queue as the placement.
  const std::vector<TeachingStep> planning = teachingSteps(plan);
  ASSERT_EQ(planning.size(), plan.steps.size());
  int64_t planned = 0;
  for (const TeachingStep& s : planning) {
    planned += s.rtasks;
    if (!s.ops.empty()) EXPECT_NE(s.explanation.find("ready queue"), std::string::npos) << s.explanation;
  }
  EXPECT_EQ(planned, static_cast<int64_t>(plan.numRTasks()));
}

TEST(TeachingModel, IsAWellBehavedModelAndSteps) {
  TeachingModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QSignalSpy current(&model, &TeachingModel::currentChanged);
  for (const char* policy : {"sequential", "wavefront", "greedy", "ios", "graphturbo", "dynamic"}) {
    SCOPED_TRACE(policy);
    const PipelineResult r = planInception(policy);
    model.setPlan(r.artifacts.plan);
    ASSERT_GT(model.rowCount(), 1);
    EXPECT_EQ(model.current(), 0);
    EXPECT_TRUE(model.index(0).data(TeachingModel::CurrentRole).toBool());
    EXPECT_FALSE(model.previous());
    ASSERT_TRUE(model.next());
    EXPECT_EQ(model.current(), 1);
    EXPECT_EQ(current.last().first().toInt(), 1);
    EXPECT_FALSE(model.index(0).data(TeachingModel::CurrentRole).toBool());
    model.setCurrent(model.rowCount() + 5);  // clamped
    EXPECT_EQ(model.current(), model.rowCount() - 1);
    EXPECT_FALSE(model.next());
    for (int row = 0; row < model.rowCount(); ++row) {
      const QModelIndex i = model.index(row);
      EXPECT_FALSE(i.data().toString().isEmpty());
      EXPECT_FALSE(i.data(TeachingModel::ExplanationRole).toString().isEmpty());
      const auto ops = i.data(TeachingModel::OpsRole).value<QList<int>>();
      const auto nodes = i.data(TeachingModel::NodesRole).value<QList<int>>();
      ASSERT_EQ(ops.size(), nodes.size());
      for (int k = 0; k < ops.size(); ++k) EXPECT_EQ(r.artifacts.plan->ops.at(static_cast<size_t>(ops[k])).node, nodes[k]);
    }
  }
  model.setPlan(nullptr);
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_EQ(model.current(), -1);
  EXPECT_FALSE(model.next());
  EXPECT_TRUE(model.currentOps().isEmpty());
}

}  // namespace
}  // namespace rammer::viz

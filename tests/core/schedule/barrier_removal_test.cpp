// BarrierRemoval: hand-made programs where a barrier is redundant, needed by
// the rTasks it guards, or needed only further downstream; bad questions;
// and random programs full of redundant waits, judged against checkPlan on
// the edited plan.
#include "core/schedule/barrier_removal.h"

#include <gtest/gtest.h>

#include <random>

#include "core/schedule/validator.h"
#include "tests/core/schedule/schedule_fixtures.h"
#include "tests/support/plan_mutation.h"

using namespace rammer;
using namespace rammer::schedule;
namespace rt = rammer::testing;

using rt::exec;
using rt::handPlan;
using rt::wait;
using rt::withoutBarrier;

TEST(BarrierRemoval, TellsRedundantFromNeededBarriers) {
  const ir::Graph g = rt::chainGraph(3);  // ops a0 -> a1 -> a2
  // vEU 2 first waits for a0 (which a2 does not read), then for a1, whose
  // wait already covers a0.
  const Plan plan = handPlan(g, {1, 1, 1},
                           {{exec(0, 0)}, {wait({{0, 0}}), exec(1, 0)}, {wait({{0, 0}}), wait({{1, 1}}), exec(2, 0)}});
  auto removal = BarrierRemoval::analyse(plan, g);
  ASSERT_TRUE(removal.ok()) << removal.errorText();
  EXPECT_EQ(removal->barriers(), (std::vector<std::pair<int, Slot>>{{0, {1, 0}}, {0, {2, 0}}, {0, {2, 1}}}));

  auto redundant = removal->without(0, {2, 0});
  ASSERT_TRUE(redundant.ok()) << redundant.errorText();
  EXPECT_FALSE(redundant->needed);

  auto needed = removal->without(0, {2, 1});
  ASSERT_TRUE(needed.ok()) << needed.errorText();
  ASSERT_TRUE(needed->needed);
  EXPECT_EQ(needed->problem.kind, ProblemKind::Dependency);
  EXPECT_EQ(needed->problem.tasks, (std::vector<RTask>{{2, 0}, {1, 0}}));
  // Slots as in the edited plan: a2[0] moves up to order 1.
  EXPECT_EQ(needed->problem.places, (std::vector<Slot>{{2, 1}, {1, 1}}));
  EXPECT_EQ(needed->problem.message,
            "a2[0] (program 0 vEU 2 order 1) may start before its producer a1[0] (vEU 1 order 1) finishes: no barrier "
            "chain orders them");
  // The validator says the same of the edited plan.
  const ValidationReport edited = checkPlan(withoutBarrier(plan, 0, {2, 1}), g);
  ASSERT_EQ(edited.problems.size(), 1u);
  EXPECT_EQ(edited.problems[0].message, needed->problem.message);
  EXPECT_TRUE(checkPlan(withoutBarrier(plan, 0, {2, 0}), g).ok());
}

TEST(BarrierRemoval, FollowsKnowledgeDownstream) {
  const ir::Graph g = rt::twoBranchGraph();  // b1 -> b2, c1 -> c2 (ops 0..3)
  // vEU 1's barrier is not needed by c1 or c2, but vEU 2 learns b1 through it.
  const Plan plan =
      handPlan(g, {1, 1, 1, 1}, {{exec(0, 0)}, {wait({{0, 0}}), exec(2, 0), exec(3, 0)}, {wait({{1, 1}}), exec(1, 0)}});
  ASSERT_EQ(plan.ops[1].name, "b2");
  auto removal = BarrierRemoval::analyse(plan, g);
  ASSERT_TRUE(removal.ok()) << removal.errorText();
  auto v = removal->without(0, {1, 0});
  ASSERT_TRUE(v.ok()) << v.errorText();
  ASSERT_TRUE(v->needed);
  EXPECT_EQ(v->problem.tasks, (std::vector<RTask>{{1, 0}, {0, 0}}));
  EXPECT_EQ(v->problem.places, (std::vector<Slot>{{2, 1}, {0, 0}}));
  EXPECT_FALSE(checkPlan(withoutBarrier(plan, 0, {1, 0}), g).ok());
}

TEST(BarrierRemoval, RefusesBadQuestionsAndInvalidPlans) {
  const ir::Graph g = rt::chainGraph(2);
  // vEU 2 waits on vEU 1's barrier slot itself.
  const Plan plan = handPlan(g, {1, 1}, {{exec(0, 0)}, {wait({{0, 0}})}, {wait({{1, 0}}), exec(1, 0)}});
  auto removal = BarrierRemoval::analyse(plan, g);
  ASSERT_TRUE(removal.ok()) << removal.errorText();
  auto waitedOn = removal->without(0, {1, 0});
  ASSERT_FALSE(waitedOn.ok());
  EXPECT_NE(waitedOn.errorText().find("is itself waited on by the barrier at program 0 vEU 2 order 0"), std::string::npos)
      << waitedOn.errorText();
  auto notBarrier = removal->without(0, {0, 0});
  ASSERT_FALSE(notBarrier.ok());
  EXPECT_NE(notBarrier.errorText().find("no barrier at program 0 vEU 0 order 0"), std::string::npos);
  EXPECT_FALSE(removal->without(3, {0, 0}).ok());
  EXPECT_FALSE(removal->without(0, {7, 0}).ok());

  const Plan broken = handPlan(g, {1, 1}, {{exec(0, 0)}, {exec(1, 0)}});
  auto refused = BarrierRemoval::analyse(broken, g);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.errorText().find("the plan is not valid: a1[0]"), std::string::npos) << refused.errorText();
}

// Random one-program plans of a 3 x 4 stacked-LSTM grid on 4 vEUs. Each
// rTask waits for its producers, mostly directly, sometimes through a slot
// of some other vEU that may or may not carry the knowledge; stray barriers
// wait on random earlier slots and make many direct waits redundant. Plans
// the validator rejects are drawn again.
TEST(BarrierRemoval, AgreesWithTheValidatorOnRandomPlans) {
  const ir::Graph g = rt::gridGraph(3, 4);
  std::mt19937 rng(77);
  int needed = 0, redundant = 0, refused = 0, plans = 0;
  for (int attempt = 0; attempt < 400 && plans < 60; ++attempt) {
    std::vector<int64_t> tasks;
    for (size_t i = 0; i < g.numNodeSlots(); ++i) tasks.push_back(1 + static_cast<int64_t>(rng() % 3));
    const Plan shape = handPlan(g, tasks, {{}, {}, {}, {}});
    std::vector<std::vector<Instr>> streams(4);
    std::vector<std::vector<Slot>> placed(shape.ops.size());
    auto anySlot = [&]() -> std::optional<Slot> {
      const int v = static_cast<int>(rng() % 4);
      if (streams[static_cast<size_t>(v)].empty()) return std::nullopt;
      return Slot{v, static_cast<int32_t>(rng() % streams[static_cast<size_t>(v)].size())};
    };
    for (size_t op = 0; op < shape.ops.size(); ++op)
      for (int64_t r = 0; r < tasks[op]; ++r) {
        const int v = static_cast<int>(rng() % 4);
        auto& stream = streams[static_cast<size_t>(v)];
        if (rng() % 3 == 0) {
          std::vector<Slot> stray;
          for (int k = 0; k < 3; ++k)
            if (auto s = anySlot()) stray.push_back(*s);
          if (!stray.empty()) stream.push_back(wait(stray));
        }
        std::vector<Slot> waits;
        for (int32_t prod : shape.ops[op].producers)
          for (const Slot& s : placed[static_cast<size_t>(prod)]) {
            if (s.veu == v) continue;
            if (rng() % 10 == 0) {
              if (auto other = anySlot()) waits.push_back(*other);  // maybe covers s, maybe not
            } else {
              waits.push_back(s);
            }
          }
        if (!waits.empty()) stream.push_back(wait(waits));
        stream.push_back(exec(static_cast<int32_t>(op), r));
        placed[op].push_back({v, static_cast<int32_t>(stream.size() - 1)});
      }
    const Plan plan = handPlan(g, tasks, streams);
    if (!checkPlan(plan, g).ok()) continue;
    ++plans;
    auto removal = BarrierRemoval::analyse(plan, g);
    ASSERT_TRUE(removal.ok()) << removal.errorText();
    for (const auto& [p, at] : removal->barriers()) {
      SCOPED_TRACE("plan " + std::to_string(plans) + " barrier at vEU " + std::to_string(at.veu) + " order " +
                   std::to_string(at.order));
      auto v = removal->without(p, at);
      if (!v.ok()) {
        EXPECT_NE(v.errorText().find("is itself waited on"), std::string::npos) << v.errorText();
        ++refused;
        continue;
      }
      const ValidationReport edited = checkPlan(withoutBarrier(plan, 0, at), g, 100000);
      EXPECT_EQ(v->needed, !edited.ok());
      if (v->needed) {
        ++needed;
        const bool listed = std::any_of(edited.problems.begin(), edited.problems.end(),
                                        [&](const PlanProblem& q) { return q.message == v->problem.message; });
        EXPECT_TRUE(listed) << v->problem.message;
      } else {
        ++redundant;
      }
    }
  }
  EXPECT_GE(plans, 30);
  // Both answers, and the refusal, come up often enough to mean something.
  EXPECT_GT(needed, 50);
  EXPECT_GT(redundant, 50);
  EXPECT_GT(refused, 0);
}

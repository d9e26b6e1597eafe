// The validator: hand-made broken plans, and a mutation test that deletes
// each barrier of real wavefront plans and compares with a naive checker.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "core/schedule/policy.h"
#include "core/schedule/validator.h"
#include "tests/core/schedule/schedule_fixtures.h"
#include "tests/support/plan_mutation.h"

using namespace rammer;
using namespace rammer::schedule;
namespace rt = rammer::testing;

namespace {

// A plan over the chain x -> a0 -> a1 (ops 0, 1), each rKernel with `tasks`
// rTasks, and hand-written streams.
Plan handPlan(const ir::Graph& g, int64_t tasks, std::vector<std::vector<Instr>> streams, int veusPerSM = 8) {
  return rt::handPlan(g, std::vector<int64_t>(g.numNodeSlots(), tasks), std::move(streams), veusPerSM);
}
using rt::exec;
using rt::wait;

std::string allMessages(const ValidationReport& r) {
  std::string s;
  for (const auto& p : r.problems) s += p.message + "\n";
  return s;
}

}  // namespace

TEST(Validator, AcceptsSameVEUOrderAndBarriers) {
  const ir::Graph g = rt::chainGraph(2);
  // a1[0] after a0[0] on vEU 0; a1[1] on vEU 1 waits for vEU 0 order 0... and a0[1] is its own vEU's earlier task.
  Plan plan = handPlan(g, 2, {{exec(0, 0), exec(1, 0)}, {exec(0, 1), wait({{0, 0}}), exec(1, 1)}, {}});
  // a1[0] also needs a0[1] on vEU 1: missing -> one dependency problem.
  ValidationReport r = checkPlan(plan, g);
  ASSERT_EQ(r.problems.size(), 1u) << allMessages(r);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::Dependency);
  EXPECT_NE(r.problems[0].message.find("a1[0] (program 0 vEU 0 order 1) may start before its producer a0[1] (vEU 1 order 0)"),
            std::string::npos)
      << r.problems[0].message;
  EXPECT_EQ(r.problems[0].tasks, (std::vector<RTask>{{1, 0}, {0, 1}}));
  // Add the barrier: clean.
  plan = handPlan(g, 2, {{exec(0, 0), wait({{1, 0}}), exec(1, 0)}, {exec(0, 1), wait({{0, 0}}), exec(1, 1)}});
  EXPECT_TRUE(checkPlan(plan, g).ok()) << allMessages(checkPlan(plan, g));
}

TEST(Validator, FollowsBarrierChainsTransitively) {
  const ir::Graph g = rt::chainGraph(2);
  // a0[0] on vEU 0; vEU 1 waits for it; vEU 2 waits only for vEU 1's barrier
  // slot, which implies a0[0] complete.
  Plan plan = handPlan(g, 1, {{exec(0, 0)}, {wait({{0, 0}})}, {wait({{1, 0}}), exec(1, 0)}});
  EXPECT_TRUE(checkPlan(plan, g).ok()) << allMessages(checkPlan(plan, g));
  // Without the middle link the chain is broken.
  plan = handPlan(g, 1, {{exec(0, 0)}, {exec(1, 0)}});
  EXPECT_EQ(checkPlan(plan, g).count(ProblemKind::Dependency), 1u);
}

TEST(Validator, EarlierProgramsSatisfyDependenciesLaterOnesDoNot) {
  const ir::Graph g = rt::chainGraph(2);
  Plan plan = handPlan(g, 1, {{exec(0, 0)}});
  plan.programs.push_back(ProgramInfo{RProgram::fromStreams({{}, {exec(1, 0)}}), 8, "next"});
  EXPECT_TRUE(checkPlan(plan, g).ok());
  std::swap(plan.programs[0], plan.programs[1]);
  ValidationReport r = checkPlan(plan, g);
  ASSERT_EQ(r.count(ProblemKind::Dependency), 1u) << allMessages(r);
  EXPECT_NE(r.problems[0].message.find("a later program"), std::string::npos);
}

TEST(Validator, ReportsMissingAndDuplicatedRTasks) {
  const ir::Graph g = rt::chainGraph(1);
  Plan plan = handPlan(g, 3, {{exec(0, 0), exec(0, 0)}, {exec(0, 7)}});
  ValidationReport r = checkPlan(plan, g);
  EXPECT_EQ(r.count(ProblemKind::Coverage), 2u) << allMessages(r);
  EXPECT_EQ(r.count(ProblemKind::Structure), 1u) << allMessages(r);
  const std::string all = allMessages(r);
  EXPECT_NE(all.find("a0[0] runs 2 times: program 0 vEU 0 order 0; program 0 vEU 0 order 1"), std::string::npos) << all;
  EXPECT_NE(all.find("2 of 3 rTasks of 'a0' never run: a0[1], a0[2]"), std::string::npos) << all;
  EXPECT_NE(all.find("a0[7] at program 0 vEU 1 order 0 is not an rTask"), std::string::npos) << all;
}

TEST(Validator, FindsWaitCyclesAndWaitsForMissingSlots) {
  const ir::Graph g = rt::chainGraph(2);
  // vEU 0 waits for vEU 1's a0[1] (order 1), which sits behind vEU 1's barrier waiting for vEU 0's a0[0] (order 1).
  Plan plan = handPlan(g, 2, {{wait({{1, 1}}), exec(0, 0), exec(1, 0)}, {wait({{0, 1}}), exec(0, 1), exec(1, 1)}});
  ValidationReport r = checkPlan(plan, g);
  ASSERT_EQ(r.count(ProblemKind::Deadlock), 1u) << allMessages(r);
  const PlanProblem& p = r.problems[0];
  EXPECT_NE(p.message.find("wait cycle"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("before a0[0] waits for a0[1] at vEU 1 order 1"), std::string::npos) << p.message;
  EXPECT_EQ(std::set<RTask>(p.tasks.begin(), p.tasks.end()), (std::set<RTask>{{0, 0}, {0, 1}}));
  // Waiting for a slot past the end of a stream never returns.
  plan = handPlan(g, 1, {{exec(0, 0)}, {wait({{0, 5}}), exec(1, 0)}});
  r = checkPlan(plan, g);
  ASSERT_EQ(r.count(ProblemKind::Deadlock), 1u) << allMessages(r);
  EXPECT_NE(r.problems[0].message.find("vEU 0 order 5, which does not exist"), std::string::npos);
}

TEST(Validator, ChecksThatVEUsFitAndAreCoResident) {
  const ir::Graph g = rt::chainGraph(1);
  // 17 vEUs of 256-thread rTasks on 2 SMs: only 16 can be resident.
  std::vector<std::vector<Instr>> s(17);
  s[16].push_back(exec(0, 0));
  Plan plan = handPlan(g, 1, s);
  ValidationReport r = checkPlan(plan, g);
  ASSERT_EQ(r.count(ProblemKind::Resources), 1u) << allMessages(r);
  EXPECT_NE(r.problems[0].message.find("17 vEUs but only 16 (8 per SM x 2 SMs)"), std::string::npos);
  // An rTask wider than a block.
  plan = handPlan(g, 1, {{exec(0, 0)}});
  plan.ops[0].kernel.block = {2048, 1, 1};
  r = checkPlan(plan, g);
  EXPECT_GE(r.count(ProblemKind::Resources), 1u);
  EXPECT_NE(allMessages(r).find("needs 2048 threads (for a0[0])"), std::string::npos) << allMessages(r);
  EXPECT_FALSE(validate(plan, g).empty());
}

// A persistent cell's weight slice stays in its vEU's shared memory beside
// every rTask's scratch (issue #45 item 3): a vEU whose scratch and
// resident slice together exceed a block's shared memory is refused, named
// by the rTask that keeps the slice.
TEST(Validator, AVEUMustHoldItsResidentSliceBesideItsScratch) {
  const ir::Graph g = rt::chainGraph(2);
  Plan plan = handPlan(g, 1, {{exec(0, 0), exec(1, 0)}});
  const int64_t optin = plan.device.sharedPerBlockOptin;
  plan.ops[0].kernel.sharedBytes = optin / 2 + 1024;
  plan.ops[1].kernel.sharedBytes = 1024;
  plan.ops[1].kernel.residentBytes = optin / 2;
  plan.ops[1].kernel.residentValue = "R";
  ValidationReport r = checkPlan(plan, g);
  ASSERT_GE(r.count(ProblemKind::Resources), 1u) << allMessages(r);
  EXPECT_NE(allMessages(r).find(std::to_string(optin / 2) + " B of it the weights a1[0] keeps resident"), std::string::npos)
      << allMessages(r);
  // A slice 4 KB smaller fits beside the same scratch.
  plan.ops[1].kernel.residentBytes = optin / 2 - 4096;
  r = checkPlan(plan, g);
  EXPECT_TRUE(r.ok()) << allMessages(r);
}

// ---- mutation test -------------------------------------------------------

namespace {

// Naive oracle: does a happens-before path lead from the producer's slot to
// the consumer's? Edges: program order on a vEU, and waited slot -> barrier.
bool naiveBroken(const Plan& plan) {
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const RProgram& prog = plan.programs[p].program;
    auto reaches = [&](Slot from, Slot to) {
      std::set<Slot> seen;
      std::vector<Slot> stack{to};  // walk backwards from the consumer
      while (!stack.empty()) {
        Slot s = stack.back();
        stack.pop_back();
        if (s == from) return true;
        if (!seen.insert(s).second) continue;
        if (s.order > 0) stack.push_back({s.veu, s.order - 1});
        if (const auto* b = std::get_if<Barrier>(&prog.stream(s.veu)[static_cast<size_t>(s.order)]))
          for (const Slot& w : b->waits) stack.push_back(w);
      }
      return false;
    };
    for (int v = 0; v < prog.numVEUs(); ++v)
      for (size_t o = 0; o < prog.stream(v).size(); ++o) {
        const auto* e = std::get_if<Exec>(&prog.stream(v)[o]);
        if (!e) continue;
        for (int32_t prod : plan.ops[static_cast<size_t>(e->task.op)].producers)
          for (int64_t r = 0; r < plan.ops[static_cast<size_t>(prod)].kernel.numRTasks; ++r) {
            const Slot ps = prog.slotOf({prod, r});
            if (ps.veu < 0) continue;  // earlier program
            const Slot me{v, static_cast<int32_t>(o)};
            if (ps == me || !reaches(ps, me)) return true;
          }
      }
  }
  return false;
}

void mutationTest(const ir::Graph& g, const rt::FakeLibrary& lib) {
  auto policy = makePolicy("wavefront", lib.options());
  auto plan = (*policy)->schedule(g, rt::smallDevice(1), {});
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  ASSERT_TRUE(checkPlan(*plan, g).ok()) << allMessages(checkPlan(*plan, g));
  ASSERT_FALSE(naiveBroken(*plan));
  int barriers = 0, broken = 0;
  for (size_t p = 0; p < plan->programs.size(); ++p) {
    const RProgram& prog = plan->programs[p].program;
    for (int v = 0; v < prog.numVEUs(); ++v)
      for (size_t o = 0; o < prog.stream(v).size(); ++o) {
        if (!std::holds_alternative<Barrier>(prog.stream(v)[o])) continue;
        ++barriers;
        const Plan mutated = rt::withoutBarrier(*plan, p, Slot{v, static_cast<int32_t>(o)});
        const bool expectBroken = naiveBroken(mutated);
        broken += expectBroken;
        const ValidationReport r = checkPlan(mutated, g);
        EXPECT_EQ(!r.ok(), expectBroken) << "barrier at program " << p << " vEU " << v << " order " << o << "\n"
                                         << allMessages(r);
        EXPECT_EQ(r.count(ProblemKind::Dependency), r.problems.size()) << allMessages(r);
      }
  }
  EXPECT_GT(barriers, 2);
  EXPECT_GT(broken, 0);
}

}  // namespace

TEST(Validator, MutationDiamond) {
  rt::FakeLibrary lib;
  lib.defaultTasks = 5;  // 8 vEUs on one SM: b and c share vEUs with a's
  // Uneven rTask counts so producers and consumers land on different vEUs.
  lib.table["a"] = {rt::fakeKernel("a_k", 3, 3e6)};
  lib.table["d"] = {rt::fakeKernel("d_k", 6, 6e6)};
  mutationTest(rt::diamondGraph(), lib);
}

TEST(Validator, MutationStackedLstmGrid) {
  rt::FakeLibrary lib;
  lib.defaultTasks = 3;
  lib.table["cell_0_0"] = {rt::fakeKernel("big", 7, 7e6)};
  mutationTest(rt::gridGraph(2, 3), lib);
}

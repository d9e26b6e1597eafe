// The policies on small graphs with synthetic rKernels: plans validate, and
// each policy's characteristic shape and rules are visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/schedule/policy.h"
#include "core/schedule/validator.h"
#include "tests/core/schedule/schedule_fixtures.h"

using namespace rammer;
using namespace rammer::schedule;
namespace rt = rammer::testing;
using rammer::testing::FakeLibrary;
using rammer::testing::fakeKernel;

namespace {

Plan mustSchedule(const std::string& policy, const ir::Graph& g, const FakeLibrary& lib, const Constraints& c = {},
                  const device::DeviceSpec& d = rt::smallDevice()) {
  auto p = makePolicy(policy, lib.options());
  EXPECT_TRUE(p.ok()) << p.errorText();
  auto plan = (*p)->schedule(g, d, c);
  EXPECT_TRUE(plan.ok()) << plan.errorText();
  return plan.ok() ? std::move(*plan) : Plan{};
}

std::string scheduleError(const std::string& policy, const ir::Graph& g, const FakeLibrary& lib, const Constraints& c) {
  auto p = makePolicy(policy, lib.options());
  auto plan = (*p)->schedule(g, rt::smallDevice(), c);
  EXPECT_FALSE(plan.ok());
  return plan.ok() ? std::string() : plan.errorText();
}

int32_t opIndex(const Plan& plan, const std::string& name) {
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (plan.ops[i].name == name) return static_cast<int32_t>(i);
  ADD_FAILURE() << "no op " << name;
  return -1;
}

// The program holding an op's rTask 0.
int programOf(const Plan& plan, int32_t op) {
  for (size_t p = 0; p < plan.programs.size(); ++p)
    if (plan.programs[p].program.contains({op, 0})) return static_cast<int>(p);
  return -1;
}

std::set<int> veusOf(const Plan& plan, int32_t op) {
  std::set<int> v;
  for (const auto& pi : plan.programs)
    for (int64_t r = 0; r < plan.ops[static_cast<size_t>(op)].kernel.numRTasks; ++r)
      if (pi.program.contains({op, r})) v.insert(pi.program.slotOf({op, r}).veu);
  return v;
}

bool hasDecision(const Plan& plan, const std::string& text) {
  return std::any_of(plan.decisions.begin(), plan.decisions.end(),
                     [&](const std::string& d) { return d.find(text) != std::string::npos; });
}

}  // namespace

TEST(Policy, EveryPolicyProducesValidPlansOnSmallGraphs) {
  FakeLibrary lib;
  lib.defaultTasks = 6;
  const std::vector<std::pair<std::string, ir::Graph>> graphs = {{"chain", rt::chainGraph(5)},
                                                                 {"diamond", rt::diamondGraph()},
                                                                 {"branches", rt::twoBranchGraph()},
                                                                 {"grid", rt::gridGraph(3, 4)}};
  for (const auto& policy : policyNames()) {
    for (const auto& [gname, g] : graphs) {
      SCOPED_TRACE(policy + " on " + gname);
      Plan plan = mustSchedule(policy, g, lib);
      EXPECT_EQ(plan.policy, policy);
      EXPECT_EQ(plan.ops.size(), g.numNodes());
      EXPECT_EQ(plan.numRTasks(), 6 * g.numNodes());
      const auto diags = validate(plan, g);
      EXPECT_TRUE(diags.empty()) << ir::formatDiagnostics(diags);
      EXPECT_FALSE(plan.decisions.empty());
      for (const auto& op : plan.ops) EXPECT_FALSE(op.kernelRule.empty()) << op.name;
    }
  }
}

TEST(Policy, SequentialIsOneProgramPerOperatorRoundRobin) {
  FakeLibrary lib;
  lib.defaultTasks = 20;  // more than the 16 vEUs: wraps around
  const ir::Graph g = rt::diamondGraph();
  Plan plan = mustSchedule("sequential", g, lib);
  ASSERT_EQ(plan.programs.size(), 4u);
  for (size_t p = 0; p < 4; ++p) {
    const RProgram& prog = plan.programs[p].program;
    EXPECT_EQ(prog.numVEUs(), 16);
    EXPECT_EQ(plan.programs[p].veusPerSM, 8);
    EXPECT_EQ(prog.numBarriers(), 0u);  // dependencies are kernel boundaries
    for (int64_t r = 0; r < 20; ++r) EXPECT_EQ(prog.slotOf({static_cast<int32_t>(p), r}).veu, r % 16);
  }
}

TEST(Policy, ViewsHaveNoRTasksAndDependenciesPassThroughThem) {
  rt::GraphBuilder b;
  ir::ValueId x = b.input("x", ir::Shape{4});
  ir::ValueId a = b.op("Relu", "a", {x});
  ir::ValueId v = b.op("Reshape", "view", {a});
  b.output(b.op("Relu", "c", {v}));
  FakeLibrary lib;
  for (const auto& policy : policyNames()) {
    Plan plan = mustSchedule(policy, b.graph(), lib);
    const int32_t view = opIndex(plan, "view"), c = opIndex(plan, "c"), ia = opIndex(plan, "a");
    EXPECT_TRUE(plan.ops[static_cast<size_t>(view)].isView);
    EXPECT_EQ(plan.ops[static_cast<size_t>(c)].producers, (std::vector<int32_t>{ia}));
    EXPECT_EQ(plan.numRTasks(), 8u);
    EXPECT_TRUE(validate(plan, b.graph()).empty()) << policy;
  }
  EXPECT_EQ(mustSchedule("sequential", b.graph(), lib).programs.size(), 2u);
}

TEST(Policy, WavefrontRunsIndependentBranchesInParallelInOneProgram) {
  FakeLibrary lib;
  const ir::Graph g = rt::twoBranchGraph();
  Plan plan = mustSchedule("wavefront", g, lib);
  ASSERT_EQ(plan.programs.size(), 1u);
  const RProgram& prog = plan.programs[0].program;
  const int32_t b1 = opIndex(plan, "b1"), c1 = opIndex(plan, "c1");
  const std::set<int> vb = veusOf(plan, b1), vc = veusOf(plan, c1);
  EXPECT_EQ(vb.size(), 4u);
  EXPECT_EQ(vc.size(), 4u);
  for (int v : vb) EXPECT_EQ(vc.count(v), 0u) << "b1 and c1 share vEU " << v;
  // Both start at once: first instruction of their vEUs.
  for (int64_t r = 0; r < 4; ++r) {
    EXPECT_EQ(prog.slotOf({b1, r}).order, 0);
    EXPECT_EQ(prog.slotOf({c1, r}).order, 0);
  }
  // The second wave is parallel too, and waits for the first through barriers.
  const std::set<int> vb2 = veusOf(plan, opIndex(plan, "b2")), vc2 = veusOf(plan, opIndex(plan, "c2"));
  for (int v : vb2) EXPECT_EQ(vc2.count(v), 0u) << "b2 and c2 share vEU " << v;
  EXPECT_GT(prog.numBarriers(), 0u);
  EXPECT_TRUE(validate(plan, g).empty());
}

TEST(Policy, WavefrontCutsOnlyWhenANewLaunchIsFaster) {
  FakeLibrary lib;
  const ir::Graph g = rt::diamondGraph();
  // Default launch overhead (2.5 us) > barrier latency: everything in one program.
  Plan one = mustSchedule("wavefront", g, lib);
  EXPECT_EQ(one.programs.size(), 1u);
  EXPECT_TRUE(hasDecision(one, "appended to program 0"));
  // A free launch beats a barrier round trip: every dependent wave is cut.
  device::DeviceSpec d = rt::smallDevice();
  d.launchOverheadUs = 0;
  Plan cut = mustSchedule("wavefront", g, lib, {}, d);
  EXPECT_EQ(cut.programs.size(), 3u);  // waves {a}, {b, c}, {d}
  EXPECT_TRUE(hasDecision(cut, "as a new program"));
  EXPECT_NE(cut.programs[1].cutReason.find("appending would finish at"), std::string::npos);
  EXPECT_TRUE(validate(cut, g).empty());
}

TEST(Policy, WavefrontPicksFastestUnlessTheWaveOversubscribes) {
  // "split": 16 rTasks, 50% more work in all (fast: one round on 16 vEUs).
  // "whole": 4 rTasks, the least work (efficient, but 4x longer rTasks).
  auto candidates = [] {
    return std::vector<kernels::RKernel>{fakeKernel("split", 16, 1.5e9), fakeKernel("whole", 4, 1e9)};
  };
  FakeLibrary lib;
  // One op alone: 16 rTasks <= 16 vEUs -> fastest.
  lib.table["a0"] = candidates();
  Plan alone = mustSchedule("wavefront", rt::chainGraph(1), lib);
  EXPECT_EQ(alone.ops[0].kernel.name, "split");
  EXPECT_EQ(alone.ops[0].kernelRule, "fastest");
  // Three ready ops: 48 rTasks > 16 vEUs -> most efficient.
  rt::GraphBuilder b;
  ir::ValueId x = b.input("x", ir::Shape{4});
  for (const char* n : {"p", "q", "r"}) {
    b.output(b.op("Relu", n, {x}));
    lib.table[n] = candidates();
  }
  Plan wide = mustSchedule("wavefront", b.graph(), lib);
  for (const auto& op : wide.ops) {
    EXPECT_EQ(op.kernel.name, "whole") << op.name;
    EXPECT_EQ(op.kernelRule, "most efficient");
  }
  EXPECT_TRUE(hasDecision(wide, "48 rTasks with the fastest rKernels > 16 vEUs"));
  // Sequential (RammerBase) always takes the fastest.
  Plan base = mustSchedule("sequential", b.graph(), lib);
  for (const auto& op : base.ops) EXPECT_EQ(op.kernel.name, "split");
}

// The rule's efficient choice is checked against the fastest set: 32 short
// rTasks (2 rounds on 16 vEUs) finish before 2 long ones with 20% less
// work, so the wave keeps the fastest and says why.
TEST(Policy, WavefrontKeepsTheFastestWhereTheyFinishTheWaveFirst) {
  FakeLibrary lib;
  lib.table["a0"] = {fakeKernel("split", 32, 1.2e9), fakeKernel("whole", 2, 1e9)};
  Plan plan = mustSchedule("wavefront", rt::chainGraph(1), lib);
  EXPECT_EQ(plan.ops[0].kernel.name, "split");
  EXPECT_EQ(plan.ops[0].kernelRule, "fastest");
  EXPECT_TRUE(hasDecision(plan, "32 rTasks with the fastest rKernels > 16 vEUs -> fastest rKernels"));
  EXPECT_TRUE(hasDecision(plan, "the most efficient finish the wave at"));
}

// Issue #27 item 2: the wavefront weighs each vDevice shape its candidates'
// register budgets give. "wide": 16 rTasks at 32 registers (8 vEUs per SM);
// "big": 2 rTasks at 200 registers (1 vEU per SM, all of its registers).
TEST(Policy, WavefrontPicksTheVDeviceShapeWithTheCostModel) {
  auto candidates = [](double bigFlops) {
    auto big = fakeKernel("big", 2, bigFlops);
    big.regsEstimate = 200;
    return std::vector<kernels::RKernel>{fakeKernel("wide", 16, 1e9), big};
  };
  // Half the work with the large tile: one vEU per SM finishes first.
  FakeLibrary lib;
  lib.table["a0"] = candidates(0.5e9);
  Plan shaped = mustSchedule("wavefront", rt::chainGraph(1), lib);
  ASSERT_EQ(shaped.programs.size(), 1u);
  EXPECT_EQ(shaped.programs[0].veusPerSM, 1);
  EXPECT_EQ(shaped.programs[0].program.numVEUs(), 2);
  EXPECT_EQ(shaped.ops[0].kernel.name, "big");
  EXPECT_TRUE(hasDecision(shaped, "vDevice shapes weighed: 8/SM")) << shaped.decisions.front();
  EXPECT_TRUE(hasDecision(shaped, "; 1/SM"));
  EXPECT_TRUE(validate(shaped, rt::chainGraph(1)).empty());
  // Twice the work with the large tile: 8 vEUs per SM and "wide" win.
  lib.table["a0"] = candidates(2e9);
  Plan wide = mustSchedule("wavefront", rt::chainGraph(1), lib);
  EXPECT_EQ(wide.programs[0].veusPerSM, 8);
  EXPECT_EQ(wide.ops[0].kernel.name, "wide");
}

TEST(Policy, APinnedVDeviceShapeIsHonouredOrRefusedWithItsReason) {
  auto big = fakeKernel("big", 2, 0.5e9);
  big.regsEstimate = 200;
  FakeLibrary lib;
  lib.table["a0"] = {fakeKernel("wide", 16, 1e9), big};
  const ir::Graph g = rt::chainGraph(2);
  // Pinned to 4 per SM (64 registers): only "wide" fits, though "big" would be faster.
  Constraints c;
  c.shapeFor["a0"] = 4;
  Plan four = mustSchedule("wavefront", g, lib, c);
  EXPECT_EQ(four.ops[0].kernel.name, "wide");
  EXPECT_EQ(four.programs[0].veusPerSM, 4);
  EXPECT_TRUE(validate(four, g).empty());
  // An operator pinned to another shape than the program's starts its own.
  c.shapeFor["a1"] = 1;
  Plan split = mustSchedule("wavefront", g, lib, c);
  ASSERT_EQ(split.programs.size(), 2u);
  EXPECT_EQ(split.programs[1].veusPerSM, 1);
  EXPECT_NE(split.programs[1].cutReason.find("pinned to 1 vEUs per SM, the program's is 4"), std::string::npos)
      << split.programs[1].cutReason;
  // No candidate fits the pinned shape: the error names the rKernel.
  FakeLibrary onlyBig;
  onlyBig.table["a0"] = {big};
  Constraints tight;
  tight.shapeFor["a0"] = 4;
  const std::string err = scheduleError("wavefront", g, onlyBig, tight);
  EXPECT_NE(err.find("no vDevice shape runs"), std::string::npos) << err;
  EXPECT_NE(err.find("'big'"), std::string::npos) << err;
  EXPECT_NE(err.find("needs 200 registers"), std::string::npos) << err;
  // Shapes other than 1, 2 and 4, and unknown operators, are refused up front.
  Constraints odd;
  odd.shapeFor["a0"] = 3;
  EXPECT_NE(scheduleError("wavefront", g, lib, odd).find("the shapes are 1, 2 and 4"), std::string::npos);
  Constraints unknown;
  unknown.shapeFor["zz"] = 2;
  EXPECT_NE(scheduleError("wavefront", g, lib, unknown).find("zz"), std::string::npos);
}

TEST(Policy, GreedyIsOneProgramWithStageBarriers) {
  FakeLibrary lib;
  const ir::Graph g = rt::gridGraph(3, 4);
  Plan plan = mustSchedule("greedy", g, lib);
  ASSERT_EQ(plan.programs.size(), 1u);
  const RProgram& prog = plan.programs[0].program;
  EXPECT_GT(prog.numBarriers(), 0u);
  // The grid has 3 + 4 - 1 = 6 anti-diagonal stages.
  EXPECT_TRUE(hasDecision(plan, "stage 5: cell_2_3"));
  EXPECT_FALSE(hasDecision(plan, "stage 6"));
  // Every rTask of stage 2 (cell_0_2) waits for all of stage 1, including
  // cell_1_0, which it does not read: the stage barrier.
  const int32_t s1 = opIndex(plan, "cell_1_0"), s2 = opIndex(plan, "cell_0_2");
  const Slot first = prog.slotOf({s2, 0});
  ASSERT_GT(first.order, 0);
  const auto* barrier = std::get_if<Barrier>(&prog.stream(first.veu)[static_cast<size_t>(first.order - 1)]);
  ASSERT_NE(barrier, nullptr);
  std::set<int> waited;
  for (const Slot& s : barrier->waits) waited.insert(s.veu);
  for (int v : veusOf(plan, s1)) {
    if (v != first.veu) {
      EXPECT_EQ(waited.count(v), 1u) << "stage barrier misses vEU " << v;
    }
  }
  EXPECT_TRUE(validate(plan, g).empty());
}

TEST(Policy, PinnedKernelIsUsedAndUnknownNamesListCandidates) {
  FakeLibrary lib;
  lib.table["a1"] = {fakeKernel("fast", 8, 1e6), fakeKernel("slow", 2, 1e9)};
  Constraints c;
  c.kernelFor["a1"] = "slow";
  for (const auto& policy : policyNames()) {
    Plan plan = mustSchedule(policy, rt::chainGraph(3), lib, c);
    EXPECT_EQ(plan.ops[1].kernel.name, "slow") << policy;
    EXPECT_EQ(plan.ops[1].kernelRule, "pinned") << policy;
  }
  c.kernelFor["a1"] = "nope";
  const std::string err = scheduleError("wavefront", rt::chainGraph(3), lib, c);
  EXPECT_NE(err.find("'nope'"), std::string::npos) << err;
  EXPECT_NE(err.find("candidates: fast, slow"), std::string::npos) << err;
  Constraints unknown;
  unknown.kernelFor["zz"] = "fast";
  EXPECT_NE(scheduleError("greedy", rt::chainGraph(3), lib, unknown).find("no operator named 'zz'"),
            std::string::npos);
}

TEST(Policy, PinnedRTasksLandOnTheirVEUAndOrder) {
  FakeLibrary lib;
  const ir::Graph g = rt::diamondGraph();
  Constraints c;
  c.pins.push_back({"b", 2, 11, -1});  // rTask 2 of b -> vEU 11
  c.pins.push_back({"c", -1, 5, -1});  // all of c -> vEU 5
  c.pins.push_back({"d", 1, 5, -1});   // d[1] after all of c on vEU 5
  for (const auto& policy : staticPolicyNames()) {
    SCOPED_TRACE(policy);
    Plan plan = mustSchedule(policy, g, lib, c);
    const int32_t b = opIndex(plan, "b"), cc = opIndex(plan, "c"), d = opIndex(plan, "d");
    EXPECT_EQ(plan.programs[static_cast<size_t>(programOf(plan, b))].program.slotOf({b, 2}).veu, 11);
    EXPECT_EQ(veusOf(plan, cc), (std::set<int>{5}));
    EXPECT_EQ(plan.programs[static_cast<size_t>(programOf(plan, d))].program.slotOf({d, 1}).veu, 5);
    EXPECT_TRUE(validate(plan, g).empty()) << ir::formatDiagnostics(validate(plan, g));
  }
}

TEST(Policy, OutOfRangePinsAndImpossibleOrdersAreErrors) {
  FakeLibrary lib;
  Constraints c;
  c.pins.push_back({"a1", 0, 16, -1});  // 16 vEUs: 0..15
  for (const auto& policy : staticPolicyNames()) {
    const std::string err = scheduleError(policy, rt::chainGraph(3), lib, c);
    EXPECT_NE(err.find("a1[0] to vEU 16"), std::string::npos) << err;
    EXPECT_NE(err.find("only 16 vEUs"), std::string::npos) << err;
  }
  Constraints r;
  r.pins.push_back({"a1", 9, 0, -1});  // a1 has 4 rTasks
  EXPECT_NE(scheduleError("sequential", rt::chainGraph(3), lib, r).find("has only 4 rTasks"), std::string::npos);
  // a1[0] first on the vEU that runs a0[0]: it would run before its producer.
  Constraints o;
  o.pins.push_back({"a0", 0, 0, -1});
  o.pins.push_back({"a1", 0, 0, 0});
  const std::string err = scheduleError("wavefront", rt::chainGraph(3), lib, o);
  EXPECT_NE(err.find("cannot be honoured"), std::string::npos) << err;
  EXPECT_NE(err.find("a1[0]"), std::string::npos) << err;
}

TEST(Policy, PinnedOrderMovesAnIndependentTaskForward) {
  FakeLibrary lib;
  // Two branches; pin c1[0] to vEU 0 at order 0, ahead of b1[0] which the policy put there.
  Constraints c;
  c.pins.push_back({"c1", 0, 0, 0});
  for (const auto& policy : staticPolicyNames()) {
    SCOPED_TRACE(policy);
    const ir::Graph g = rt::twoBranchGraph();
    Plan plan = mustSchedule(policy, g, lib, c);
    const int32_t c1 = opIndex(plan, "c1");
    const RProgram& prog = plan.programs[static_cast<size_t>(programOf(plan, c1))].program;
    EXPECT_EQ(prog.slotOf({c1, 0}), (Slot{0, 0}));
    EXPECT_TRUE(validate(plan, g).empty()) << ir::formatDiagnostics(validate(plan, g));
  }
}

TEST(Policy, CutAndMergeEditsMoveProgramBoundaries) {
  FakeLibrary lib;
  const ir::Graph g = rt::chainGraph(4);
  Constraints cut;
  cut.cutBefore.insert("a2");
  for (const std::string policy : {"wavefront", "greedy"}) {
    SCOPED_TRACE(policy);
    Plan plan = mustSchedule(policy, g, lib, cut);
    ASSERT_EQ(plan.programs.size(), 2u);
    EXPECT_EQ(programOf(plan, 1), 0);
    EXPECT_EQ(programOf(plan, 2), 1);
    EXPECT_EQ(programOf(plan, 3), 1);
    EXPECT_NE(plan.programs[1].cutReason.find("cut_before 'a2'"), std::string::npos);
    EXPECT_TRUE(validate(plan, g).empty());
  }
  Constraints merge;
  merge.noCutBefore.insert("a1");
  Plan seq = mustSchedule("sequential", g, lib, merge);
  ASSERT_EQ(seq.programs.size(), 3u);
  EXPECT_EQ(programOf(seq, 0), 0);
  EXPECT_EQ(programOf(seq, 1), 0);
  EXPECT_GT(seq.programs[0].program.numTasks(), 4u);
  EXPECT_TRUE(validate(seq, g).empty()) << ir::formatDiagnostics(validate(seq, g));
  // Merge beats the wavefront's own cut rule.
  device::DeviceSpec d = rt::smallDevice();
  d.launchOverheadUs = 0;
  Plan wf = mustSchedule("wavefront", g, lib, merge, d);
  EXPECT_EQ(programOf(wf, 0), programOf(wf, 1));
  Constraints both;
  both.cutBefore.insert("a1");
  both.noCutBefore.insert("a1");
  EXPECT_NE(scheduleError("greedy", g, lib, both).find("both a cut and a merge"), std::string::npos);
}

TEST(Policy, FactoryAndEstimate) {
  EXPECT_TRUE(makePolicy("Wavefront").ok());
  auto bad = makePolicy("fastest");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errorText().find("sequential, wavefront, greedy, ios"), std::string::npos);
  // Roofline by hand: H100 66.9 TFLOP/s over 132 SMs; 8 vEUs/SM of 256 threads
  // each get 1/8 of an SM: 66.9e6 / 132 / 8 FLOP/us. 1e6 FLOP per rTask:
  const device::DeviceSpec h100 = device::presetDevice("h100").value();
  const double flopsPerUs = 66.9e6 / 132 / 8;
  EXPECT_NEAR(estimateTaskTimeUs(fakeKernel("k", 10, 1e7), h100, 8), 1e6 / flopsPerUs, 1e-9);
  // 32 threads cannot use more than 32 of the SM's 128 lanes.
  EXPECT_NEAR(estimateTaskTimeUs(fakeKernel("k", 10, 1e7, 32), h100, 1), 1e6 / (66.9e6 / 132 / 4), 1e-9);
  // Memory-bound: 3350 GB/s = 3.35e6 B/us over 132 x 8 vEUs; 1e6 B per rTask.
  EXPECT_NEAR(estimateTaskTimeUs(fakeKernel("k", 10, 0, 256, 0, 1e7), h100, 8), 1e6 / (3.35e6 / (132 * 8)), 1e-9);
}

TEST(Policy, EveryPolicyStopsWhenCancelled) {
  FakeLibrary lib;
  lib.defaultTasks = 3000;  // enough rTasks that materialising polls too
  const ir::Graph g = rt::gridGraph(3, 6);
  for (const auto& name : policyNames()) {
    SCOPED_TRACE(name);
    // Cancelled from the start, and after a few polls (mid-planning).
    for (int after : {0, 3}) {
      PolicyOptions options = lib.options();
      int polls = 0;
      options.cancelled = [&] { return ++polls > after; };
      auto policy = makePolicy(name, options);
      ASSERT_TRUE(policy.ok());
      auto plan = (*policy)->schedule(g, rt::smallDevice(), {});
      ASSERT_FALSE(plan.ok());
      EXPECT_EQ(plan.errors().front().message, "scheduling cancelled");
      EXPECT_EQ(polls, after + 1);  // stops at the first poll that says so
    }
    // A flag that never turns: the same plan as without one.
    PolicyOptions options = lib.options();
    int polls = 0;
    options.cancelled = [&] { return ++polls < 0; };
    const Plan watched = *(*makePolicy(name, options))->schedule(g, rt::smallDevice(), {});
    const Plan plain = mustSchedule(name, g, lib);
    EXPECT_GT(polls, 3);
    EXPECT_EQ(watched.decisions, plain.decisions);
    EXPECT_EQ(watched.numRTasks(), plain.numRTasks());
  }
}

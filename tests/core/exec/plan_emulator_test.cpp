// The CPU emulator on small graphs: policy plans against the reference
// executor at several thread counts, hand-built plans that need a thread to
// switch between vEUs, deadlocks (cycles, missing slots) reported instead of
// hanging, split-K zeroing, views, traces, cancellation and bad input.
#include "core/exec/plan_emulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

#include "core/exec/reference_executor.h"
#include "core/ir/words.h"
#include "core/kernels/kernel_library.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/policy.h"
#include "core/schedule/validator.h"
#include "tests/support/graph_builder.h"
#include "tests/support/plan_mutation.h"

using namespace rammer;
using schedule::Barrier;
using schedule::Exec;
using schedule::Instr;
using schedule::Plan;
using schedule::Slot;
namespace rt = rammer::testing;
using rt::randomTensor;

namespace {

// A device with few SMs keeps vEU counts small enough to read in messages.
device::DeviceSpec smallDevice() {
  device::DeviceSpec d = device::presetDevice("h100").value();
  d.sms = 4;
  return d;
}

void expectClose(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].dtype(), want[i].dtype()) << what << " output " << i;
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what << " output " << i;
    if (want[i].dtype() != ir::DType::Float32) {
      EXPECT_EQ(got[i].toDoubles(), want[i].toDoubles()) << what << " output " << i;
      continue;
    }
    const auto g = got[i].values<float>();
    const auto w = want[i].values<float>();
    double scale = 0;
    for (float v : w) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    for (size_t e = 0; e < w.size(); ++e)
      ASSERT_NEAR(g[e], w[e], 1e-5 * scale + 1e-4 * std::fabs(w[e])) << what << " output " << i << " element " << e;
  }
}

ir::Graph optimized(rt::GraphBuilder& b) {
  EXPECT_TRUE(b.infer().empty());
  ir::Graph g = std::move(b.graph());
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(g, ctx);
  EXPECT_TRUE(records.ok()) << records.errorText();
  return g;
}

// Conv -> BN -> Relu -> Reshape (a view) -> MatMul -> Add -> Relu, and a
// second branch MaxPool -> Flatten (a view that is a graph output).
ir::Graph mixedGraph() {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 3, 8, 8});
  const ir::ValueId w = b.constant("w", randomTensor({8, 3, 3, 3}, 1));
  const ir::ValueId c = b.op("Conv", "conv", {x, w}, rt::attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ir::ValueId bn = b.op("BatchNormalization", "bn",
                              {c, b.constant("g", randomTensor({8}, 2)), b.constant("be", randomTensor({8}, 3)),
                               b.constant("m", randomTensor({8}, 4)),
                               b.constant("v", ir::Tensor::fromVector<float>({8}, std::vector<float>(8, 1.5f)))});
  const ir::ValueId r = b.op("Relu", "relu", {bn});
  const ir::ValueId flat = b.op("Reshape", "reshape", {r, b.constant("shape", ir::Tensor::fromVector<int64_t>({2}, {1, 512}))});
  const ir::ValueId mm = b.op("MatMul", "fc", {flat, b.constant("fcw", randomTensor({512, 16}, 5))});
  const ir::ValueId add = b.op("Add", "bias", {mm, b.constant("fcb", randomTensor({16}, 6))});
  b.output(b.op("Relu", "out", {add}));
  const ir::ValueId pool = b.op("MaxPool", "pool", {x}, rt::attrs({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                                                    {"strides", std::vector<int64_t>{2, 2}}}));
  b.output(b.op("Flatten", "flatten", {pool}));
  return optimized(b);
}

Plan schedulePlan(const ir::Graph& g, const std::string& policy, const schedule::Constraints& c = {}) {
  auto p = schedule::makePolicy(policy);
  EXPECT_TRUE(p.ok()) << p.errorText();
  auto plan = (*p)->schedule(g, smallDevice(), c);
  EXPECT_TRUE(plan.ok()) << plan.errorText();
  EXPECT_TRUE(schedule::checkPlan(*plan, g).ok());
  return std::move(plan).value();
}

std::vector<ir::Tensor> reference(const ir::Graph& g, const std::vector<ir::Tensor>& inputs) {
  auto ref = exec::runReference(g, inputs);
  EXPECT_TRUE(ref.ok()) << ref.errorText();
  return ref.ok() ? std::move(ref).value() : std::vector<ir::Tensor>{};
}

ir::Result<exec::EmulationResult> emulate(const Plan& plan, const ir::Graph& g, const std::vector<ir::Tensor>& inputs,
                                          int threads, bool trace = false) {
  exec::EmulatorOptions o;
  o.threads = threads;
  o.trace = trace;
  return exec::emulatePlan(plan, g, inputs, o);
}

// x [16, 256] -> Transpose "t" -> Softmax "s": two operators whose rKernels
// come from the library, for plans written by hand.
struct HandCase {
  ir::Graph graph;
  std::vector<ir::Tensor> inputs;
  Plan plan;  // ops only; tests add programs
  int64_t tTasks = 0, sTasks = 0;
};

HandCase handCase() {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {16, 256});
  const ir::ValueId t = b.op("Transpose", "t", {x}, rt::attrs({{"perm", std::vector<int64_t>{1, 0}}}));
  b.output(b.op("Softmax", "s", {t}, rt::attrs({{"axis", int64_t{-1}}})));
  EXPECT_TRUE(b.infer().empty());
  HandCase h;
  h.graph = std::move(b.graph());
  h.inputs = {randomTensor({16, 256}, 7)};
  h.plan.policy = "hand";
  h.plan.device = smallDevice();
  const auto order = h.graph.topologicalOrder();
  EXPECT_TRUE(order.ok());
  for (ir::NodeId id : *order) {
    auto ks = kernels::kernelsFor(h.graph, id);
    EXPECT_TRUE(ks.ok()) << ks.errorText();
    schedule::PlannedOp op;
    op.node = id;
    op.name = h.graph.node(id).name;
    op.opType = h.graph.node(id).opType;
    op.kernel = ks->candidates.front();
    if (!h.plan.ops.empty()) op.producers = {0};
    h.plan.ops.push_back(std::move(op));
  }
  h.tTasks = h.plan.ops[0].kernel.numRTasks;
  h.sTasks = h.plan.ops[1].kernel.numRTasks;
  return h;
}

std::vector<Instr> execs(int32_t op, int64_t from, int64_t to) {
  std::vector<Instr> out;
  for (int64_t r = from; r < to; ++r) out.push_back(Exec{{op, r}});
  return out;
}
std::vector<Instr> concat(std::vector<std::vector<Instr>> parts) {
  std::vector<Instr> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}
Instr waitFor(std::vector<Slot> slots) { return Barrier{std::move(slots)}; }

void addProgram(Plan& plan, std::vector<std::vector<Instr>> streams) {
  plan.programs.push_back(schedule::ProgramInfo{schedule::RProgram::fromStreams(std::move(streams)), 8, "hand"});
}

}  // namespace

TEST(PlanEmulator, MatchesTheReferenceForEveryPolicyAndThreadCount) {
  const ir::Graph g = mixedGraph();
  const std::vector<ir::Tensor> inputs = {randomTensor({1, 3, 8, 8}, 11)};
  const std::vector<ir::Tensor> want = reference(g, inputs);
  for (const std::string& policy : schedule::policyNames()) {
    const Plan plan = schedulePlan(g, policy);
    for (int threads : {1, 2, 3, 5}) {
      auto got = emulate(plan, g, inputs, threads);
      ASSERT_TRUE(got.ok()) << policy << " x" << threads << ": " << got.errorText();
      EXPECT_GE(got->threads, 1);
      EXPECT_LE(got->threads, threads);
      expectClose(got->outputs, want, policy + " with " + std::to_string(threads) + " threads");
    }
  }
}

// A dynamic program (issue #31 item 3): workers take rTasks from the ready
// queue as gates open; the outputs are the reference's at any thread count,
// and the trace shows which vEU ran what, each rTask after its producers.
TEST(PlanEmulator, RunsADynamicPlanAtEveryThreadCount) {
  const ir::Graph g = mixedGraph();
  const std::vector<ir::Tensor> inputs = {randomTensor({1, 3, 8, 8}, 11)};
  const std::vector<ir::Tensor> want = reference(g, inputs);
  const Plan plan = schedulePlan(g, "dynamic");
  ASSERT_TRUE(plan.programs.at(0).dynamic);
  for (int threads : {1, 2, 5}) {
    auto got = emulate(plan, g, inputs, threads, true);
    ASSERT_TRUE(got.ok()) << threads << ": " << got.errorText();
    expectClose(got->outputs, want, "dynamic with " + std::to_string(threads) + " threads");
    ASSERT_TRUE(got->trace);
    EXPECT_EQ(got->trace->tasks.size(), plan.numRTasks());
    std::map<int32_t, double> lastEnd, firstStart;
    for (const auto& t : got->trace->tasks) {
      EXPECT_LT(t.veu, threads);
      lastEnd[t.task.op] = std::max(lastEnd[t.task.op], t.endUs);
      auto [it, fresh] = firstStart.try_emplace(t.task.op, t.startUs);
      if (!fresh) it->second = std::min(it->second, t.startUs);
    }
    for (const auto& [op, start] : firstStart)
      for (int32_t p : plan.ops[static_cast<size_t>(op)].producers)
        if (lastEnd.count(p)) {
          EXPECT_GE(start, lastEnd[p]) << plan.ops[static_cast<size_t>(op)].name;
        }
  }
  // A gate one too high is refused before anything runs.
  const Plan broken =
      rammer::testing::withDynamicEdit(plan, 0, [](schedule::DynamicProgram& dp) { dp.ops.back().gate += 1; });
  auto refused = emulate(broken, g, inputs, 2);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.errorText().find("producer rTasks must finish first"), std::string::npos) << refused.errorText();
}

TEST(PlanEmulator, OneThreadSwitchesBetweenVEUsThatWaitOnEachOther) {
  HandCase h = handCase();
  ASSERT_GE(h.tTasks, 4);
  ASSERT_GE(h.sTasks, 2);
  // vEUs 0 and 1 come first in every worker's round but wait for the
  // Transpose that vEUs 2 and 3 run; vEU 3's barrier covers vEU 2's half.
  const int64_t th = h.tTasks / 2, sh = h.sTasks / 2;
  const auto last3 = static_cast<int32_t>(h.tTasks - th);  // order of vEU 3's barrier
  addProgram(h.plan, {concat({{waitFor({{3, last3}})}, execs(1, 0, sh)}),
                      concat({{waitFor({{3, last3}})}, execs(1, sh, h.sTasks)}),
                      execs(0, 0, th),
                      concat({execs(0, th, h.tTasks), {waitFor({{2, static_cast<int32_t>(th - 1)}})}})});
  ASSERT_TRUE(schedule::checkPlan(h.plan, h.graph).ok());
  const std::vector<ir::Tensor> want = reference(h.graph, h.inputs);
  for (int threads : {1, 2, 4, 16}) {
    auto got = emulate(h.plan, h.graph, h.inputs, threads);
    ASSERT_TRUE(got.ok()) << got.errorText();
    EXPECT_EQ(got->threads, std::min(threads, 4));
    expectClose(got->outputs, want, std::to_string(threads) + " threads");
  }
}

TEST(PlanEmulator, ABarrierCycleIsADeadlockNamingTheWaits) {
  HandCase h = handCase();
  // vEU 0 waits for vEU 1's order 1, vEU 1 for vEU 0's order 1: neither
  // passes its barrier at order 0. vEU 2 waits for vEU 0 behind them.
  addProgram(h.plan, {concat({{waitFor({{1, 1}})}, execs(0, 0, 2)}),
                      concat({{waitFor({{0, 1}})}, execs(0, 2, h.tTasks)}),
                      concat({{waitFor({{0, 2}, {1, 1}})}, execs(1, 0, h.sTasks)})});
  // The validator calls it a deadlock too.
  EXPECT_GE(schedule::checkPlan(h.plan, h.graph).count(schedule::ProblemKind::Deadlock), 1u);
  for (int threads : {1, 2, 3}) {
    auto got = emulate(h.plan, h.graph, h.inputs, threads);
    ASSERT_FALSE(got.ok()) << threads << " threads";
    const std::string e = got.errorText();
    EXPECT_NE(e.find("deadlock in program 0: no vEU can make progress"), std::string::npos) << e;
    EXPECT_NE(e.find("vEU 0 waits at order 0 (before t[0]) for vEU 1 order 1"), std::string::npos) << e;
    EXPECT_NE(e.find("vEU 1 waits at order 0 (before t[2]) for vEU 0 order 1"), std::string::npos) << e;
    EXPECT_NE(e.find("vEU 2 waits at order 0 (before s[0]) for vEU 0 order 2"), std::string::npos) << e;
  }
}

TEST(PlanEmulator, ADeadlockAfterSomeWorkAndInALaterProgramIsFound) {
  HandCase h = handCase();
  // Program 0 runs all but the last Transpose rTask. In program 1 vEU 0 runs
  // that one, then waits for vEU 1's second barrier; vEU 1's first barrier
  // waits for vEU 0's.
  addProgram(h.plan, {execs(0, 0, h.tTasks - 1)});
  addProgram(h.plan, {concat({execs(0, h.tTasks - 1, h.tTasks), {waitFor({{1, 1}})}, execs(1, 0, h.sTasks)}),
                      {waitFor({{0, 1}}), waitFor({{0, 0}})}});
  for (int threads : {1, 2}) {
    auto got = emulate(h.plan, h.graph, h.inputs, threads);
    ASSERT_FALSE(got.ok());
    const std::string e = got.errorText();
    EXPECT_NE(e.find("deadlock in program 1"), std::string::npos) << e;
    EXPECT_NE(e.find("vEU 0 waits at order 1 (before s[0]) for vEU 1 order 1, which vEU 1 cannot reach (it is "
                     "stuck at order 0)"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("vEU 1 waits at order 0 for vEU 0 order 1, which vEU 0 cannot reach (it is stuck at order 1)"),
              std::string::npos)
        << e;
  }
}

TEST(PlanEmulator, WaitsOnSlotsThatDoNotExistAreDeadlocksFoundBeforeRunning) {
  struct Case {
    Instr wait;
    std::string message;
  };
  const std::vector<Case> cases = {
      {waitFor({{5, 0}}), "the barrier at program 0 vEU 1 order 0 waits for vEU 5 order 0, which does not exist "
                          "(the program has 2 vEUs)"},
      {waitFor({{0, 99}}), "waits for vEU 0 order 99, which does not exist (vEU 0 has"},
      {waitFor({{1, 2}}), "waits for vEU 1 order 2, which is itself or comes after it on the same vEU"},
      {waitFor({{-1, 0}}), "waits for vEU -1 order 0, which does not exist"},
  };
  for (const Case& c : cases) {
    HandCase h = handCase();
    addProgram(h.plan, {execs(0, 0, h.tTasks), concat({{c.wait}, execs(1, 0, h.sTasks)})});
    auto got = emulate(h.plan, h.graph, h.inputs, 2);
    ASSERT_FALSE(got.ok()) << c.message;
    EXPECT_NE(got.errorText().find("deadlock: " ), std::string::npos) << got.errorText();
    EXPECT_NE(got.errorText().find(c.message), std::string::npos) << got.errorText();
  }
}

TEST(PlanEmulator, RefusesInstructionsThatNameNoRealRTaskAndTasksRunTwiceOrNever) {
  struct Case {
    std::vector<std::vector<Instr>> streams;
    std::string message;
  };
  HandCase base = handCase();
  const int64_t t = base.tTasks, s = base.sTasks;
  const auto all = [&] { return concat({execs(0, 0, t), execs(1, 0, s)}); };
  const std::vector<Case> cases = {
      {{concat({all(), execs(7, 0, 1)})}, "runs operator 7, but the plan has 2 operators"},
      {{concat({all(), execs(0, t, t + 1)})}, "runs t[" + std::to_string(t) + "], but rKernel"},
      {{concat({all(), execs(0, 1, 2)})}, "t[1] runs more than once (again at program 0 vEU 0 order " +
                                              std::to_string(t + s) + ")"},
      {{concat({execs(0, 1, t), execs(1, 0, s)})}, "t[0] never runs: no program places it"},
  };
  for (const Case& c : cases) {
    HandCase h = handCase();
    addProgram(h.plan, c.streams);
    auto got = emulate(h.plan, h.graph, h.inputs, 2);
    ASSERT_FALSE(got.ok()) << c.message;
    EXPECT_NE(got.errorText().find(c.message), std::string::npos) << got.errorText();
  }
  // A view has no rTasks.
  HandCase h = handCase();
  h.plan.ops[0].isView = true;
  addProgram(h.plan, {all()});
  auto got = emulate(h.plan, h.graph, h.inputs, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.errorText().find("runs t[0], but 't' is a view and has no rTasks"), std::string::npos)
      << got.errorText();
}

TEST(PlanEmulator, ZeroesSplitKOutputsBeforeTheirProgram) {
  rt::GraphBuilder b;
  const ir::ValueId a = b.input("a", {8, 512});
  const ir::ValueId h = b.op("Relu", "pre", {a});
  b.output(b.op("MatMul", "mm", {h, b.constant("w", randomTensor({512, 24}, 21))}));
  const ir::Graph g = optimized(b);
  ir::NodeId mm = ir::kNone;
  for (size_t i = 0; i < g.numNodeSlots(); ++i)
    if (!g.node(static_cast<ir::NodeId>(i)).removed && g.node(static_cast<ir::NodeId>(i)).name == "mm")
      mm = static_cast<ir::NodeId>(i);
  ASSERT_NE(mm, ir::kNone);
  auto ks = kernels::kernelsFor(g, mm);
  ASSERT_TRUE(ks.ok());
  std::string splitK;
  for (const auto& k : ks->candidates)
    if (k.zeroOutputsFirst) splitK = k.name;
  ASSERT_FALSE(splitK.empty()) << "the library offers no split-K rKernel for a K=512 MatMul";

  schedule::Constraints pin;
  pin.kernelFor["mm"] = splitK;
  const std::vector<ir::Tensor> inputs = {randomTensor({8, 512}, 22)};
  const std::vector<ir::Tensor> want = reference(g, inputs);
  for (const std::string& policy : schedule::policyNames()) {
    const Plan plan = schedulePlan(g, policy, pin);
    bool pinned = false;
    for (const auto& op : plan.ops) pinned = pinned || (op.name == "mm" && op.kernel.zeroOutputsFirst);
    ASSERT_TRUE(pinned) << policy;
    // Outputs start as NaN in the emulator: only the zeroing makes the
    // atomically accumulated result finite.
    for (int threads : {1, 3}) {
      auto got = emulate(plan, g, inputs, threads);
      ASSERT_TRUE(got.ok()) << got.errorText();
      expectClose(got->outputs, want, policy + " split-K");
    }
  }
}

TEST(PlanEmulator, ViewsAliasTheirInputAndGraphInputsCanBeOutputs) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {4, 64});
  const ir::ValueId s = b.op("Softmax", "s", {x}, rt::attrs({{"axis", int64_t{-1}}}));
  const ir::ValueId shape = b.constant("shape", ir::Tensor::fromVector<int64_t>({3}, {4, 8, 8}));
  const ir::ValueId v1 = b.op("Reshape", "v1", {s, shape});
  const ir::ValueId v2 = b.op("Flatten", "v2", {v1});  // a view of a view
  b.output(b.op("Softmax", "s2", {v2}, rt::attrs({{"axis", int64_t{0}}})));
  b.output(v1);
  b.output(x);
  b.output(b.op("Reshape", "xv", {x, shape}));  // a view of a graph input
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = std::move(b.graph());
  const std::vector<ir::Tensor> inputs = {randomTensor({4, 64}, 31)};
  const std::vector<ir::Tensor> want = reference(g, inputs);
  for (const std::string& policy : schedule::policyNames()) {
    const Plan plan = schedulePlan(g, policy);
    auto got = emulate(plan, g, inputs, 2);
    ASSERT_TRUE(got.ok()) << got.errorText();
    expectClose(got->outputs, want, policy);
    EXPECT_EQ(got->outputs[3].shape(), (ir::Shape{4, 8, 8}));
  }
}

TEST(PlanEmulator, APlanOfViewsOnlyRunsNoProgramsAndKeepsNonFloatData) {
  rt::GraphBuilder b;
  const ir::ValueId idx = b.input("idx", {2, 3}, ir::DType::Int64);
  b.output(b.op("Reshape", "r", {idx, b.constant("shape", ir::Tensor::fromVector<int64_t>({1}, {6}))}));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = std::move(b.graph());
  const std::vector<ir::Tensor> inputs = {ir::Tensor::fromVector<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6})};
  const Plan plan = schedulePlan(g, "wavefront");
  EXPECT_EQ(plan.numRTasks(), 0u);
  auto got = emulate(plan, g, inputs, 2, /*trace=*/true);
  ASSERT_TRUE(got.ok()) << got.errorText();
  ASSERT_EQ(got->outputs.size(), 1u);
  EXPECT_EQ(got->outputs[0].dtype(), ir::DType::Int64);
  EXPECT_EQ(got->outputs[0].shape(), (ir::Shape{6}));
  EXPECT_EQ(got->outputs[0].toInt64s(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

// Integer run-time values reach an rKernel as int32 words (ir/words.h); a
// type without words, or an int64 that does not fit, is refused by name.
TEST(PlanEmulator, IntegerRunTimeValuesArriveAsWordsAndOthersAreNamed) {
  auto planFor = [](ir::DType dtype) {
    rt::GraphBuilder b;
    const ir::ValueId idx = b.input("idx", {4}, dtype);
    const ir::ValueId y = b.op("Custom", "c", {idx});
    b.graph().value(y).type = ir::TensorType{ir::DType::Float32, {4}, true};
    b.output(y);
    Plan plan;
    plan.device = smallDevice();
    schedule::PlannedOp op;
    op.node = 0;
    op.name = "c";
    op.opType = "Custom";
    op.kernel.name = "custom_k";
    op.kernel.numRTasks = 1;
    // y = the words' int32 values, as floats.
    op.kernel.cpu = [](int64_t, const kernels::TaskBuffers& tb, float*) {
      for (int k = 0; k < 4; ++k) tb.outputs[0][k] = static_cast<float>(ir::wordToInt(tb.inputs[0][k]));
    };
    plan.ops.push_back(op);
    addProgram(plan, {execs(0, 0, 1)});
    return std::pair{std::move(b.graph()), std::move(plan)};
  };
  {
    const auto [g, plan] = planFor(ir::DType::Int64);
    auto got = emulate(plan, g, {ir::Tensor::fromVector<int64_t>({4}, {1, -2, 3, 2147483647})}, 1);
    ASSERT_TRUE(got.ok()) << got.errorText();
    EXPECT_EQ(got->outputs[0].toDoubles(), (std::vector<double>{1, -2, 3, 2147483648.0}));
    auto big = emulate(plan, g, {ir::Tensor::fromVector<int64_t>({4}, {1, 2, int64_t{1} << 33, 4})}, 1);
    ASSERT_FALSE(big.ok());
    EXPECT_NE(big.errorText().find("'idx' (read by operator 'c' (Custom)) holds 8589934592 at element 2"),
              std::string::npos)
        << big.errorText();
  }
  const auto [g, plan] = planFor(ir::DType::Float64);
  auto got = emulate(plan, g, {ir::Tensor::fromVector<double>({4}, {1, 2, 3, 4})}, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.errorText().find("'idx' (read by operator 'c' (Custom)) is float64"), std::string::npos)
      << got.errorText();
}

TEST(PlanEmulator, AnRKernelThatThrowsIsAnErrorNamingTheRTask) {
  HandCase h = handCase();
  h.plan.ops[1].kernel.cpu = [](int64_t r, const kernels::TaskBuffers&, float*) {
    if (r == 1) throw std::runtime_error("tile out of range");
  };
  addProgram(h.plan, {execs(0, 0, h.tTasks), concat({{waitFor({{0, static_cast<int32_t>(h.tTasks - 1)}})},
                                                     execs(1, 0, h.sTasks)})});
  auto got = emulate(h.plan, h.graph, h.inputs, 2);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.errorText().find("failed on s[1]: tile out of range"), std::string::npos) << got.errorText();
}

TEST(PlanEmulator, CancelAndBadOptionsAndInputsAreErrors) {
  HandCase h = handCase();
  addProgram(h.plan, {execs(0, 0, h.tTasks), concat({{waitFor({{0, static_cast<int32_t>(h.tTasks - 1)}})},
                                                     execs(1, 0, h.sTasks)})});
  std::atomic<bool> cancel{true};
  exec::EmulatorOptions o;
  o.cancel = &cancel;
  size_t calls = 0, lastTotal = 0;
  o.progress = [&](size_t, size_t total) {
    ++calls;
    lastTotal = total;
  };
  auto got = exec::emulatePlan(h.plan, h.graph, h.inputs, o);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.errorText(), "cancelled");

  // Not cancelled: runs, and the last progress report says all rTasks are done.
  cancel = false;
  size_t lastDone = 0;
  o.progress = [&](size_t done, size_t total) {
    lastDone = done;
    lastTotal = total;
  };
  got = exec::emulatePlan(h.plan, h.graph, h.inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_EQ(lastTotal, static_cast<size_t>(h.tTasks + h.sTasks));
  EXPECT_EQ(lastDone, lastTotal);

  o = {};
  o.threads = -1;
  EXPECT_NE(exec::emulatePlan(h.plan, h.graph, h.inputs, o).errorText().find("at least one thread"), std::string::npos);
  EXPECT_NE(exec::emulatePlan(h.plan, h.graph, {}, {}).errorText().find("the model has 1 inputs, 0 were given"),
            std::string::npos);
  EXPECT_NE(exec::emulatePlan(h.plan, h.graph, {randomTensor({256, 16}, 1)}, {})
                .errorText()
                .find("must have shape [16, 256], got [256, 16]"),
            std::string::npos);
}

TEST(PlanEmulator, TraceHasEveryRTaskWhereThePlanPutItAfterItsProducers) {
  const ir::Graph g = mixedGraph();
  const std::vector<ir::Tensor> inputs = {randomTensor({1, 3, 8, 8}, 41)};
  for (const std::string& policy : schedule::policyNames()) {
    const Plan plan = schedulePlan(g, policy);
    auto got = emulate(plan, g, inputs, 3, /*trace=*/true);
    ASSERT_TRUE(got.ok()) << got.errorText();
    ASSERT_TRUE(got->trace.has_value());
    const sim::Trace& tr = *got->trace;
    EXPECT_EQ(tr.source, "emulated: CPU");
    EXPECT_FALSE(tr.measured);
    EXPECT_EQ(tr.sms, 4);
    EXPECT_EQ(tr.opNames.size(), plan.ops.size());
    ASSERT_EQ(tr.tasks.size(), plan.numRTasks()) << policy;
    size_t barriers = 0;
    for (const auto& p : plan.programs) barriers += p.program.numBarriers();
    EXPECT_EQ(tr.barriers.size(), barriers) << policy;
    ASSERT_EQ(tr.programs.size(), plan.programs.size());
    for (size_t p = 1; p < tr.programs.size(); ++p) EXPECT_GE(tr.programs[p].startUs, tr.programs[p - 1].endUs);
    EXPECT_GE(tr.smEfficiency, 0.0);
    EXPECT_LE(tr.smEfficiency, 1.0);

    std::map<schedule::RTask, const sim::TaskEvent*> byTask;
    for (const auto& e : tr.tasks) {
      EXPECT_TRUE(byTask.emplace(e.task, &e).second) << "rTask recorded twice";
      const schedule::ProgramInfo& info = plan.programs[static_cast<size_t>(e.program)];
      if (info.dynamic) {  // the queue placed it: on one of the emulator's workers
        EXPECT_GE(e.veu, 0);
        EXPECT_LT(e.veu, 3);
      } else {
        EXPECT_EQ(info.program.slotOf(e.task), (Slot{e.veu, e.order}));
        EXPECT_EQ(e.sm, e.veu % 4);
      }
      EXPECT_LE(e.startUs, e.endUs);
    }
    // The barriers held every consumer back until all its producer rTasks ended.
    for (const auto& e : tr.tasks)
      for (int32_t producer : plan.ops[static_cast<size_t>(e.task.op)].producers)
        for (int64_t r = 0; r < plan.ops[static_cast<size_t>(producer)].kernel.numRTasks; ++r) {
          const sim::TaskEvent* p = byTask.at({producer, r});
          EXPECT_LE(p->endUs, e.startUs) << policy << ": " << plan.ops[static_cast<size_t>(e.task.op)].name << "["
                                         << e.task.rtask << "] started before its producer "
                                         << plan.ops[static_cast<size_t>(producer)].name << "[" << r << "] ended";
        }
  }
}

// Issue #44 item 2: an rKernel that declares the elements its rTasks write
// (RKernel::written) is emulated from the reference operator, recomputed
// whenever a producer has completed rTasks since. x -> Transpose "a" ->
// Transpose "b", both copies of that kind. One worker runs vEU 0 first:
// b[0] before any of a (no barrier before it: a missing barrier), then
// after a barrier on vEU 1, which runs all of a, the rest of b. b[0] saw
// a's output unwritten (NaN) and wrote NaN; the later rTasks saw it
// written and match the reference.
TEST(PlanEmulator, AnRTaskOfAReferenceKernelWritesWhatItsInputsHeldWhenItRan) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {16, 256});
  const ir::ValueId a = b.op("Transpose", "a", {x}, rt::attrs({{"perm", std::vector<int64_t>{1, 0}}}));
  b.output(b.op("Transpose", "b", {a}, rt::attrs({{"perm", std::vector<int64_t>{1, 0}}})));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = std::move(b.graph());
  const std::vector<ir::Tensor> inputs = {randomTensor({16, 256}, 9)};
  Plan plan;
  plan.policy = "hand";
  plan.device = smallDevice();
  const auto order = g.topologicalOrder();
  ASSERT_TRUE(order.ok());
  for (ir::NodeId id : *order) {
    auto ks = kernels::kernelsFor(g, id);
    ASSERT_TRUE(ks.ok()) << ks.errorText();
    schedule::PlannedOp op;
    op.node = id;
    op.name = g.node(id).name;
    op.opType = g.node(id).opType;
    op.kernel = ks->candidates.front();
    ASSERT_FALSE(op.kernel.cpu) << op.kernel.name << " still has a CPU tile";
    ASSERT_TRUE(op.kernel.written) << op.kernel.name;
    if (!plan.ops.empty()) op.producers = {0};
    plan.ops.push_back(std::move(op));
  }
  const int64_t aTasks = plan.ops[0].kernel.numRTasks, bTasks = plan.ops[1].kernel.numRTasks;
  ASSERT_GT(bTasks, 1);
  addProgram(plan, {concat({execs(1, 0, 1), {waitFor({{1, static_cast<int32_t>(aTasks - 1)}})}, execs(1, 1, bTasks)}),
                    execs(0, 0, aTasks)});
  auto got = emulate(plan, g, inputs, 1);
  ASSERT_TRUE(got.ok()) << got.errorText();
  const std::vector<ir::Tensor> want = reference(g, inputs);
  ASSERT_EQ(got->outputs.size(), 1u);
  std::vector<kernels::WrittenRun> first;
  plan.ops[1].kernel.written(0, first);
  std::vector<bool> early(static_cast<size_t>(want[0].numel()), false);
  for (const kernels::WrittenRun& r : first)
    for (int64_t i = 0; i < r.count; ++i) early[static_cast<size_t>(r.first + i * r.stride)] = true;
  const auto gotValues = got->outputs[0].values<float>();
  const auto wantValues = want[0].values<float>();
  int64_t stale = 0;
  for (size_t e = 0; e < early.size(); ++e) {
    if (early[e]) {
      EXPECT_TRUE(std::isnan(gotValues[e])) << "element " << e << " of b[0], which ran before a";
      ++stale;
    } else {
      ASSERT_EQ(gotValues[e], wantValues[e]) << "element " << e << " of an rTask that ran after a";
    }
  }
  EXPECT_GT(stale, 0);
  EXPECT_LT(stale, want[0].numel());
}

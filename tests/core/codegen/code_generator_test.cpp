// What the code generator hands the runtime: buffers (views alias their
// storage, weights and graph inputs/outputs present), launches sized from
// the plan (persistent: active vEUs, the largest rTask's block; RammerBase:
// one ordinary launch per operator), the table words the kernels read,
// function sharing between identical rKernels, split-K zeroing, timing
// offsets, and the CUDA/HIP differences in the source.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/codegen/code_generator.h"
#include "core/codegen/function_groups.h"
#include "core/codegen/kernel_text.h"
#include "core/kernels/kernel_library.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/policy.h"
#include "core/schedule/vdevice.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/graph_builder.h"

namespace rammer::codegen {
namespace {

using testing::optimizedSampleGraph;
using testing::planSample;

int32_t bufferNamed(const GeneratedProgram& gp, const std::string& name) {
  for (size_t i = 0; i < gp.buffers.size(); ++i)
    if (gp.buffers[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

TEST(CodeGenerator, BuffersOfSampleCnn) {
  const ir::Graph g = optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = planSample(g, "wavefront");
  auto gp = generateProgram(plan, g);
  ASSERT_TRUE(gp) << gp.errorText();

  // Every graph input and output has a buffer with its position.
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const int32_t b = bufferNamed(*gp, g.value(g.inputs()[i]).name);
    ASSERT_GE(b, 0);
    EXPECT_EQ(gp->buffers[static_cast<size_t>(b)].kind, BufferInfo::Kind::Input);
    EXPECT_EQ(gp->buffers[static_cast<size_t>(b)].inputIndex, static_cast<int32_t>(i));
  }
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    const int32_t b = bufferNamed(*gp, g.value(g.outputs()[i]).name);
    ASSERT_GE(b, 0);
    EXPECT_EQ(gp->buffers[static_cast<size_t>(b)].outputIndex, static_cast<int32_t>(i));
  }
  // Each buffer's size is its value's; weights are the float constants.
  size_t weights = 0;
  for (const BufferInfo& b : gp->buffers) {
    if (b.kind == BufferInfo::Kind::Table) continue;
    const ir::Value& v = g.value(b.value);
    EXPECT_EQ(b.numel, ir::numElements(v.type.shape)) << b.name;
    EXPECT_EQ(b.kind == BufferInfo::Kind::Weight, v.constant.has_value()) << b.name;
    weights += b.kind == BufferInfo::Kind::Weight;
  }
  EXPECT_GT(weights, 0u);
  // The view Flatten ('flat') aliases the pooled tensor it reshapes.
  const int32_t flat = bufferNamed(*gp, "flat"), gap = bufferNamed(*gp, "gap");
  ASSERT_GE(flat, 0);
  ASSERT_GE(gap, 0);
  EXPECT_EQ(gp->buffers[static_cast<size_t>(flat)].storage, gap);
  EXPECT_EQ(gp->buffers[static_cast<size_t>(gap)].storage, gap);
  // The table is the last buffer and holds the words.
  ASSERT_EQ(gp->tableBuffer, static_cast<int32_t>(gp->buffers.size()) - 1);
  EXPECT_EQ(gp->buffers.back().kind, BufferInfo::Kind::Table);
  EXPECT_EQ(gp->buffers.back().numel, static_cast<int64_t>(gp->tableWords.size()));
  ASSERT_GE(gp->tableWords.size(), 4u);
  EXPECT_EQ(gp->tableWords[0], kTableMagic);
  EXPECT_EQ(gp->tableWords[1], static_cast<int32_t>(gp->tableWords.size()));
}

TEST(CodeGenerator, PersistentLaunchOfAWavefrontPlan) {
  const ir::Graph g = optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = planSample(g, "wavefront");
  ASSERT_EQ(plan.programs.size(), 1u);
  auto gp = generateProgram(plan, g);
  ASSERT_TRUE(gp) << gp.errorText();
  ASSERT_EQ(gp->launches.size(), 1u);
  const KernelLaunch& l = gp->launches[0];
  const schedule::RProgram& prog = plan.programs[0].program;
  EXPECT_TRUE(l.persistent);
  EXPECT_EQ(l.kernel, "rammer_p0");
  // The grid stops at the last vEU that has work; nobody waits beyond it.
  int lastBusy = -1;
  for (int v = 0; v < prog.numVEUs(); ++v)
    if (!prog.stream(v).empty()) lastBusy = v;
  EXPECT_EQ(l.gridBlocks, lastBusy + 1);
  EXPECT_EQ(gp->numSteps, l.gridBlocks);
  EXPECT_EQ(l.veusPerSM, plan.programs[0].veusPerSM);
  int threads = 0;
  int64_t shared = 0;
  for (const auto& op : plan.ops)
    if (!op.isView) {
      threads = std::max(threads, op.kernel.threads());
      shared = std::max(shared, op.kernel.sharedBytes);
    }
  EXPECT_EQ(l.blockThreads, threads);
  EXPECT_EQ(l.dynamicSharedBytes, shared);
  // The bounds ask for what the launched vEUs need resident, at most the
  // plan's vEUs per SM.
  EXPECT_EQ(l.boundsBlocksPerSM, minResidentBlocks(l.gridBlocks, plan.programs[0].veusPerSM, plan.device.sms));
  EXPECT_NE(gp->source.find("__launch_bounds__(" + std::to_string(threads) + ", " +
                            std::to_string(l.boundsBlocksPerSM) + ") rammer_p0("),
            std::string::npos);
  // One timed event per rTask, in (vEU, order) order.
  EXPECT_EQ(l.timedTasks.size(), plan.numRTasks());
  EXPECT_EQ(gp->numTimedEvents, static_cast<int64_t>(plan.numRTasks()));
  for (size_t e = 1; e < l.timedTasks.size(); ++e)
    EXPECT_LT(std::pair(l.timedTasks[e - 1].veu, l.timedTasks[e - 1].order),
              std::pair(l.timedTasks[e].veu, l.timedTasks[e].order));
  // Without instrumentation no timer is read.
  EXPECT_EQ(count(gp->source, "t0 = rammer_clock()"), 0u);
}

TEST(CodeGenerator, EmittedStreamsCoverEveryRTaskOnce) {
  // Decode the words back into rTasks per vEU: exactly the plan's Execs, in order.
  const ir::Graph g = optimizedSampleGraph("inception_block");
  const schedule::Plan plan = planSample(g, "wavefront");
  auto gp = generateProgram(plan, g);
  ASSERT_TRUE(gp) << gp.errorText();
  const KernelLaunch& l = gp->launches[0];
  const auto& w = gp->tableWords;
  const schedule::RProgram& prog = plan.programs[0].program;
  size_t barriers = 0;
  for (int v = 0; v < l.gridBlocks; ++v) {
    std::vector<schedule::RTask> want;
    for (const auto& ins : prog.stream(v))
      if (const auto* e = std::get_if<schedule::Exec>(&ins)) want.push_back(e->task);
    std::vector<int64_t> got;  // rtask ids (ops are checked through the timed tasks)
    const int begin = w[static_cast<size_t>(l.table.streams + 2 * v)], end = w[static_cast<size_t>(l.table.streams + 2 * v + 1)];
    for (int i = begin; i < end; ++i) {
      const auto* in = &w[static_cast<size_t>(l.table.code + 6 * i)];
      if (in[0] < 0) {
        ++barriers;
        continue;
      }
      for (int k = 0; k < in[3]; ++k) got.push_back(in[2] + k * in[4]);
    }
    ASSERT_EQ(got.size(), want.size()) << "vEU " << v;
    for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], want[k].rtask) << "vEU " << v;
    EXPECT_EQ(w[static_cast<size_t>(l.table.events + v)], l.timedTasks.empty() ? 0 : [&] {
      int64_t n = 0;
      for (int u = 0; u < v; ++u)
        for (const auto& ins : prog.stream(u)) n += std::holds_alternative<schedule::Exec>(ins);
      return static_cast<int32_t>(n);
    }());
  }
  EXPECT_GT(barriers, 0u);
}

TEST(CodeGenerator, SequentialPlansGetOneOrdinaryLaunchPerOperator) {
  const ir::Graph g = optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = planSample(g, "sequential");
  auto gp = generateProgram(plan, g);
  ASSERT_TRUE(gp) << gp.errorText();
  ASSERT_EQ(gp->launches.size(), plan.programs.size());
  EXPECT_EQ(gp->numSteps, 0);
  std::set<std::string> kernels;
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const KernelLaunch& l = gp->launches[p];
    const auto& stream0 = plan.programs[p].program.stream(0);
    ASSERT_FALSE(stream0.empty());
    const auto& op = plan.ops[static_cast<size_t>(std::get<schedule::Exec>(stream0[0]).task.op)];
    EXPECT_FALSE(l.persistent);
    EXPECT_EQ(l.gridBlocks, op.kernel.numRTasks) << op.name;
    EXPECT_EQ(l.blockThreads, op.kernel.threads()) << op.name;
    EXPECT_EQ(l.dynamicSharedBytes, op.kernel.sharedBytes) << op.name;
    ASSERT_EQ(l.timedTasks.size(), static_cast<size_t>(op.kernel.numRTasks));
    EXPECT_EQ(l.timedTasks.back().task.rtask, op.kernel.numRTasks - 1);
    kernels.insert(l.kernel);
    // The launch's argument list: one buffer per input slot then per
    // output slot; the output is the op's output value.
    const ir::Node& n = g.node(op.node);
    ASSERT_GE(l.argsOffset, 4);
    const size_t last = static_cast<size_t>(l.argsOffset) + n.inputs.size() + n.outputs.size() - 1;
    ASSERT_LT(last, gp->tableWords.size());
    const int32_t out = gp->tableWords[last];
    ASSERT_GE(out, 0);
    EXPECT_EQ(gp->buffers[static_cast<size_t>(out)].value, n.outputs.back()) << op.name;
  }
  // Operators with the same rKernel source and block share a kernel.
  EXPECT_LE(kernels.size(), static_cast<size_t>(gp->numFunctions));
  for (const std::string& k : kernels) EXPECT_EQ(count(gp->source, " " + k + "("), 1u) << k;
  EXPECT_EQ(count(gp->source, "__global__"), kernels.size());
}

TEST(CodeGenerator, InstrumentedLaunchesTimeEveryRTaskOnce) {
  const ir::Graph g = optimizedSampleGraph("sample_cnn");
  for (const char* policy : {"wavefront", "sequential"}) {
    SCOPED_TRACE(policy);
    const schedule::Plan plan = planSample(g, policy);
    CodegenOptions options;
    options.instrument = true;
    auto gp = generateProgram(plan, g, options);
    ASSERT_TRUE(gp) << gp.errorText();
    int64_t next = 0;
    std::set<schedule::RTask> timed;
    for (const KernelLaunch& l : gp->launches) {
      EXPECT_EQ(l.timingOffset, next);
      next += static_cast<int64_t>(l.timedTasks.size());
      for (const TimedTask& t : l.timedTasks) EXPECT_TRUE(timed.insert(t.task).second);
    }
    EXPECT_EQ(gp->numTimedEvents, next);
    EXPECT_EQ(timed.size(), plan.numRTasks());
    EXPECT_GE(count(gp->source, "t0 = rammer_clock()"), 1u);
    EXPECT_NE(gp->source.find("%globaltimer"), std::string::npos);
    EXPECT_NE(gp->source.find("%smid"), std::string::npos);
  }
}

TEST(CodeGenerator, HipSourceUsesHipPrimitives) {
  const ir::Graph g = optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = planSample(g, "wavefront");
  CodegenOptions options;
  options.target = Target::Hip;
  options.instrument = true;
  auto gp = generateProgram(plan, g, options);
  ASSERT_TRUE(gp) << gp.errorText();
  EXPECT_EQ(gp->target, Target::Hip);
  EXPECT_NE(gp->source.find("#include <hip/hip_runtime.h>"), std::string::npos);
  EXPECT_NE(gp->source.find("__hip_atomic_load"), std::string::npos);
  EXPECT_NE(gp->source.find("__builtin_amdgcn_s_memrealtime"), std::string::npos);
  // No PTX, but for the CUDA branches of the rKernel bodies' library
  // (core/kernels/cuda/*.cuh), which the HIP compiler never sees.
  for (size_t at = gp->source.find("asm volatile"); at != std::string::npos; at = gp->source.find("asm volatile", at + 1)) {
    const size_t branch = gp->source.rfind("\n#", at);
    ASSERT_NE(branch, std::string::npos);
    EXPECT_EQ(gp->source.compare(branch, 33, "\n#if defined(RAMMER_TARGET_CUDA)\n"), 0)
        << "PTX outside a CUDA-only branch at " << gp->source.substr(branch, 200);
  }
  EXPECT_NE(gp->source.find("__launch_bounds__(" + std::to_string(gp->launches[0].blockThreads) + ") rammer_p0("),
            std::string::npos);
}

// Two inputs through identical Relus: after fusion, two operators with the
// same rKernel code up to its name.
ir::Graph twinRelus() {
  testing::GraphBuilder b;
  const ir::ValueId x1 = b.input("x1", ir::Shape{1, 3000}), x2 = b.input("x2", ir::Shape{1, 3000});
  b.output(b.op("Relu", "r1", {x1}));
  b.output(b.op("Relu", "r2", {x2}));
  EXPECT_TRUE(b.infer().empty());
  ir::Graph g = std::move(b.graph());
  passes::PassContext ctx;
  EXPECT_TRUE(passes::standardPipeline().run(g, ctx));
  return g;
}

TEST(CodeGenerator, IdenticalRKernelsShareOneFunction) {
  const ir::Graph g = twinRelus();
  const schedule::Plan plan = planSample(g, "wavefront");
  ASSERT_EQ(plan.ops.size(), 2u);
  ASSERT_NE(plan.ops[0].kernel.cudaFunction, plan.ops[1].kernel.cudaFunction);
  auto gp = generateProgram(plan, g);
  ASSERT_TRUE(gp) << gp.errorText();
  EXPECT_EQ(gp->numFunctions, 1);
  EXPECT_EQ(count(gp->source, "__device__ void rk_n"), 1u);  // one body
  // The two ops still write their own outputs: their argument lists differ.
  const int32_t y1 = bufferNamed(*gp, g.value(g.outputs()[0]).name), y2 = bufferNamed(*gp, g.value(g.outputs()[1]).name);
  ASSERT_GE(y1, 0);
  ASSERT_GE(y2, 0);
  EXPECT_NE(y1, y2);
  const std::vector<int32_t> header(gp->tableWords.begin() + 4, gp->tableWords.begin() + 8);
  EXPECT_EQ(header, (std::vector<int32_t>{bufferNamed(*gp, "x1"), y1, bufferNamed(*gp, "x2"), y2}));

  // RammerBase: two launches of one kernel, each with its own arguments.
  auto base = generateProgram(planSample(g, "sequential"), g);
  ASSERT_TRUE(base) << base.errorText();
  ASSERT_EQ(base->launches.size(), 2u);
  EXPECT_EQ(base->launches[0].kernel, base->launches[1].kernel);
  EXPECT_EQ(base->launches[0].argsOffset, 4);
  EXPECT_EQ(base->launches[1].argsOffset, 6);
  EXPECT_EQ(count(base->source, "__global__"), 1u);

  // And the grouping itself: the same code up to the name is one group.
  const FunctionGroups groups = groupFunctions(plan, {{0, 1}, {2, 3}});
  ASSERT_EQ(groups.groups.size(), 1u);
  EXPECT_EQ(groups.groups[0].ops, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(groups.groups[0].numArgs, 2);
  EXPECT_EQ(groups.groupOfOp, (std::vector<int32_t>{0, 0}));
}

TEST(CodeGenerator, CanonicalSourceReplacesEveryUseOfTheName) {
  EXPECT_EQ(canonicalSource("void f_a(){ f_a_tbl[0]; f_b(); }", "f_a"), "void @FN@(){ @FN@_tbl[0]; f_b(); }");
  EXPECT_EQ(canonicalSource("abc", ""), "abc");
}

TEST(CodeGenerator, SplitKOutputsAreZeroedBeforeTheLaunch) {
  testing::GraphBuilder b;
  const ir::ValueId a = b.input("a", ir::Shape{1, 2048});
  std::vector<float> w(2048 * 64, 0.5f);
  const ir::ValueId bw = b.constant("w", ir::Tensor::fromVector<float>({2048, 64}, w));
  b.output(b.op("MatMul", "mm", {a, bw}));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph& g = b.graph();
  auto ks = kernels::kernelsFor(g, 0);
  ASSERT_TRUE(ks) << ks.errorText();
  const auto splitK = std::find_if(ks->candidates.begin(), ks->candidates.end(),
                                   [](const kernels::RKernel& k) { return k.zeroOutputsFirst; });
  ASSERT_NE(splitK, ks->candidates.end()) << "no split-K candidate for K = 2048";
  schedule::Constraints pin;
  pin.kernelFor["mm"] = splitK->name;
  auto policy = schedule::makePolicy("wavefront");
  ASSERT_TRUE(policy);
  auto plan = (*policy)->schedule(g, device::loadDevice("h100").value(), pin);
  ASSERT_TRUE(plan) << plan.errorText();
  ASSERT_EQ(plan->ops[0].kernel.name, splitK->name);
  auto gp = generateProgram(*plan, g);
  ASSERT_TRUE(gp) << gp.errorText();
  ASSERT_EQ(gp->launches.size(), 1u);
  EXPECT_EQ(gp->launches[0].zeroBuffers, (std::vector<int32_t>{bufferNamed(*gp, "mm")}));
}

TEST(CodeGenerator, RefusesAFloatValueWithoutKnownShape) {
  const ir::Graph g = optimizedSampleGraph("sample_cnn");
  schedule::Plan plan = planSample(g, "wavefront");
  ir::Graph broken = g;
  broken.value(broken.inputs()[0]).type.shape = {};
  broken.value(broken.inputs()[0]).type.rankKnown = false;
  auto gp = generateProgram(plan, broken);
  ASSERT_FALSE(gp);
  EXPECT_NE(gp.errorText().find("no fully known shape"), std::string::npos) << gp.errorText();
}

// A dynamic plan (issue #31): one persistent kernel per program whose queue
// table states the dynamic program word for word, a state buffer zeroed
// before each launch, every vEU of the program launched, and a timing
// event per rTask in operator order. With 4 claim shards (a schedule edit):
// the header says so and the state has 3 more claim counters per operator.
TEST(CodeGenerator, ADynamicPlanGetsItsQueueTableAndZeroedState) {
  const ir::Graph g = testing::optimizedSampleGraph("inception_block");
  schedule::Constraints shards;
  shards.claimShardsFor["branch1x1.conv"] = 4;
  const schedule::Plan plan = testing::planSample(g, "dynamic", "h100", shards);
  ASSERT_EQ(plan.programs.size(), 1u);
  const schedule::DynamicProgram& dp = *plan.programs.at(0).dynamic;
  ASSERT_EQ(dp.claimShards, 4);
  auto gp = generateProgram(plan, g, {Target::Cuda, true});
  ASSERT_TRUE(gp.ok()) << gp.errorText();
  ASSERT_EQ(gp->launches.size(), 1u);
  const KernelLaunch& l = gp->launches[0];
  EXPECT_TRUE(l.persistent);
  EXPECT_EQ(l.gridBlocks, plan.programs[0].program.numVEUs());
  auto vdevice = schedule::vdeviceOf(plan, 0);
  ASSERT_TRUE(vdevice.ok());
  // The vDevice's shared memory is the rKernels' and the dispatch slot
  // after it, inside what the launch asks for.
  int64_t rkernels = 0;
  for (const schedule::DynamicOp& d : dp.ops)
    rkernels = std::max(rkernels, plan.ops[static_cast<size_t>(d.op)].kernel.sharedBytes);
  EXPECT_EQ(vdevice->sharedBytes, rkernels + schedule::kDispatchSlotBytes);
  EXPECT_EQ(l.dynamicSharedBytes, vdevice->sharedBytes);
  const int64_t slotWord = (rkernels + 3) / 4;
  EXPECT_NE(gp->source.find("rammer_smem + " + std::to_string(slotWord) + ")"), std::string::npos);
  EXPECT_LE(4 * slotWord + 8, l.dynamicSharedBytes);
  // The state buffer: zeroed before the launch (with the split-K outputs
  // of the program's operators), sized for its words.
  const int32_t state = bufferNamed(*gp, "rammer_dynamic_state_p0");
  ASSERT_GE(state, 0);
  EXPECT_EQ(std::count(l.zeroBuffers.begin(), l.zeroBuffers.end(), state), 1);
  for (const schedule::DynamicOp& d : dp.ops)
    if (plan.ops[static_cast<size_t>(d.op)].kernel.zeroOutputsFirst) {
      const ir::Node& n = g.node(plan.ops[static_cast<size_t>(d.op)].node);
      EXPECT_EQ(std::count(l.zeroBuffers.begin(), l.zeroBuffers.end(), bufferNamed(*gp, g.value(n.outputs[0]).name)), 1)
          << plan.ops[static_cast<size_t>(d.op)].name << " accumulates from zero";
    }
  EXPECT_GT(l.zeroBuffers.size(), 1u) << "inception_block's dynamic plan has split-K convolutions";
  const auto n = static_cast<int64_t>(dp.ops.size()), queued = static_cast<int64_t>(dp.initial.size());
  EXPECT_EQ(gp->buffers[static_cast<size_t>(state)].numel, 2 * (2 + 2 * n + (n - queued) + 3 * n));
  // The queue table, read back from the table words.
  ASSERT_GE(l.table.queue, 0);
  const int32_t* q = gp->tableWords.data() + l.table.queue;
  ASSERT_EQ(q[0], n);
  ASSERT_EQ(q[1], queued);
  ASSERT_EQ(q[2], 5 + queued);
  ASSERT_EQ(q[4], 4) << "claim shards";
  for (int64_t i = 0; i < queued; ++i) EXPECT_EQ(q[5 + i], dp.initial[static_cast<size_t>(i)]);
  int64_t events = 0;
  for (int64_t i = 0; i < n; ++i) {
    const schedule::DynamicOp& d = dp.ops[static_cast<size_t>(i)];
    const int32_t* e = q + q[2] + 8 * i;
    EXPECT_EQ(e[2], d.rtasks) << "op " << i;
    EXPECT_EQ(e[3], d.gate) << "op " << i;
    ASSERT_EQ(e[5], static_cast<int32_t>(d.consumers.size())) << "op " << i;
    for (int32_t k = 0; k < e[5]; ++k) EXPECT_EQ(q[q[3] + e[4] + k], d.consumers[static_cast<size_t>(k)]);
    EXPECT_EQ(e[6], events);
    // Its argument list is the op's buffer list in the table.
    EXPECT_GT(e[1], 3);
    for (int64_t r = 0; r < d.rtasks; ++r) {
      const TimedTask& t = l.timedTasks[static_cast<size_t>(events + r)];
      EXPECT_EQ(t.task, (schedule::RTask{d.op, r}));
      EXPECT_EQ(t.veu, -1) << "a dynamic rTask's vEU is known at run time only";
    }
    events += d.rtasks;
  }
  EXPECT_EQ(events, static_cast<int64_t>(plan.numRTasks()));
  EXPECT_EQ(gp->numTimedEvents, events);
  // The kernel dispatches and counts gates; it has no instruction table.
  EXPECT_NE(gp->source.find("rammer_next(q, st, &h, &op, &rtask, veu)"), std::string::npos);
  EXPECT_NE(gp->source.find("rammer_finish(q, st, slot[0], tid)"), std::string::npos);
  EXPECT_EQ(l.table.code, -1);
}

// A persistent kernel's bounds ask for as many resident blocks per SM as
// its launched vEUs need, never more than the plan put on an SM: more caps
// the registers for nothing (issue #45 item 5).
TEST(LaunchBounds, APersistentKernelAsksForTheBlocksItsVEUsNeedResident) {
  EXPECT_EQ(minResidentBlocks(1, 8, 132), 1);      // one active vEU of a shape of 8 per SM
  EXPECT_EQ(minResidentBlocks(132, 2, 132), 1);    // one per SM fills the device
  EXPECT_EQ(minResidentBlocks(133, 2, 132), 2);
  EXPECT_EQ(minResidentBlocks(264, 2, 132), 2);    // the whole shape
  EXPECT_EQ(minResidentBlocks(5000, 4, 132), 4);   // never more than the plan's
  EXPECT_EQ(minResidentBlocks(0, 4, 132), 1);
}

}  // namespace
}  // namespace rammer::codegen

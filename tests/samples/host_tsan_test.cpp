// ThreadSanitizer over the barrier protocol: the host programs of three
// samples' Rammer plans, built with -fsanitize=thread, run without a single
// report; and the check can fail: the same program with one barrier the
// barrier analysis calls needed removed, or with one __syncthreads removed
// from an rKernel, is reported as a data race.
//
// Every vEU and every CUDA thread is a TSan fiber, switched without
// synchronisation, so only the protocol's own acquire/release and the
// __syncthreads barriers order them (core/codegen/host/rammer_host_runtime.cpp).
// The same for the dynamic policy's ready queue, and dropping one of its
// dependency edges is reported; and for a stacked LSTM in the critical-path
// order, which differs from the order the policy appended its rTasks in.
// The plans are made for a 2-SM device: TSan holds at most 8128 fibers. A
// plan that needs more runs too: each worker retires the thread fibers of
// the vEUs it used least recently; the tests at the end force that at almost
// every fan-out and show that it hides no race.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <regex>

#include "core/codegen/code_generator.h"
#include "core/device/device_spec.h"
#include "core/exec/reference_executor.h"
#include "core/kernels/cuda_library.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/barrier_removal.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/samples/mini_models.h"
#include "tests/support/host_run.h"
#include "tests/support/param_names.h"
#include "tests/support/plan_mutation.h"

namespace rammer {
namespace {

device::DeviceSpec smallDevice() { return samples_test::v100WithSMs(2, "ThreadSanitizer tests"); }

schedule::Plan wavefront(const ir::Graph& g) { return testing::planSample(g, "wavefront", smallDevice()); }

ir::Graph optimized(const std::string& name) { return testing::optimizedSampleGraph(name); }

size_t barrierCount(const schedule::Plan& plan) {
  size_t n = 0;
  for (const auto& prog : plan.programs)
    for (const auto& stream : prog.program.streams())
      for (const auto& in : stream) n += std::holds_alternative<schedule::Barrier>(in);
  return n;
}

runtime::HostExecutionOptions tsanOptions() {
  runtime::HostExecutionOptions o = testing::hostTestOptions();
  o.build.threadSanitizer = true;
  o.workers = 2;
  return o;
}

// The plan's host program under ThreadSanitizer finishes without a report
// and matches the reference; `seconds` gets the run's.
void expectRaceFreeAndRight(const schedule::Plan& plan, const ir::Graph& g, double* seconds) {
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  auto got = runtime::executeOnHost(plan, g, inputs, tsanOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4);
  *seconds = got->processSeconds;
}

class HostTsan : public ::testing::TestWithParam<std::string> {};

TEST_P(HostTsan, TheBarrierProtocolHasNoDataRace) {
  const ir::Graph g = optimized(GetParam());
  const schedule::Plan plan = wavefront(g);
  ASSERT_GT(barrierCount(plan), 10u) << "a plan with barriers to check";
  double seconds = 0;
  expectRaceFreeAndRight(plan, g, &seconds);
  std::cout << GetParam() << ": " << barrierCount(plan) << " barriers, 0 ThreadSanitizer reports, run " << seconds
            << " s\n";
}

INSTANTIATE_TEST_SUITE_P(Samples, HostTsan, ::testing::Values("sample_cnn", "inception_block", "nasbench_cells"),
                         rammer::testing::ParamName());

ir::Graph miniLstm() { return samples_test::miniStackedLstm("mini_lstm"); }

// Each vEU's rTasks in the order it runs them, program by program.
std::vector<std::vector<schedule::RTask>> execOrder(const schedule::Plan& plan) {
  std::vector<std::vector<schedule::RTask>> out;
  for (const auto& prog : plan.programs)
    for (const auto& stream : prog.program.streams()) {
      out.emplace_back();
      for (const auto& in : stream)
        if (const auto* e = std::get_if<schedule::Exec>(&in)) out.back().push_back(e->task);
    }
  return out;
}

// The critical-path order (critical_order.h) of a sequence model: its vEUs
// run the cells before the projections that can wait, so a consumer may now
// run before rTasks it used to follow; the barriers alone must order it.
TEST(HostTsanSequence, TheCriticalPathOrderOfAStackedLstmHasNoDataRace) {
  const ir::Graph g = miniLstm();
  const schedule::Plan plan = wavefront(g);
  schedule::PolicyOptions appendOrder;
  appendOrder.order = schedule::RTaskOrder::Policy;
  auto policy = schedule::makePolicy("wavefront", appendOrder);
  ASSERT_TRUE(policy.ok()) << policy.errorText();
  auto asAppended = (*policy)->schedule(g, smallDevice(), {});
  ASSERT_TRUE(asAppended.ok()) << asAppended.errorText();
  ASSERT_TRUE(execOrder(plan) != execOrder(*asAppended)) << "the list schedule kept the policy's order: nothing new to check";
  ASSERT_GT(barrierCount(plan), 10u);
  double seconds = 0;
  expectRaceFreeAndRight(plan, g, &seconds);
  std::cout << "mini_lstm: " << plan.numRTasks() << " rTasks, " << barrierCount(plan)
            << " barriers in critical-path order, 0 ThreadSanitizer reports, run " << seconds << " s\n";
}

// The dynamic policy's ready queue: gates (acquire-release), queue entries
// (release, acquire) and nothing else order an rTask after its producers.
class HostTsanDynamic : public ::testing::TestWithParam<std::string> {};

TEST_P(HostTsanDynamic, TheReadyQueueHasNoDataRace) {
  const ir::Graph g = optimized(GetParam());
  const schedule::Plan plan = testing::planSample(g, "dynamic", smallDevice());
  ASSERT_TRUE(plan.programs.front().dynamic);
  double seconds = 0;
  expectRaceFreeAndRight(plan, g, &seconds);
  std::cout << GetParam() << ": " << plan.numRTasks() << " rTasks from the ready queue, 0 ThreadSanitizer reports, run "
            << seconds << " s\n";
}

INSTANTIATE_TEST_SUITE_P(Samples, HostTsanDynamic, ::testing::Values("sample_cnn", "inception_block", "nasbench_cells"),
                         rammer::testing::ParamName());

// Claim shards, one per vEU: each vEU claims from its own counter and
// steals from the others'; the claims order nothing (relaxed adds), so the
// gates and queue entries still must.
TEST(HostTsanDynamicShards, ClaimingFromShardsAndStealingHasNoDataRace) {
  const ir::Graph g = optimized("inception_block");
  const int veus = testing::planSample(g, "dynamic", smallDevice()).programs.at(0).program.numVEUs();
  schedule::Constraints c;
  c.claimShardsFor["concat"] = veus;
  const schedule::Plan plan = testing::planSample(g, "dynamic", smallDevice(), c);
  ASSERT_EQ(plan.programs.at(0).dynamic->claimShards, veus);
  double seconds = 0;
  expectRaceFreeAndRight(plan, g, &seconds);
  std::cout << veus << " claim shards: 0 ThreadSanitizer reports, run " << seconds << " s\n";
}

// One dependency edge dropped: the consumer is queued at launch and reads
// its producer's output with nothing ordering the two.
TEST(HostTsanNegative, DroppingADependencyEdgeOfTheReadyQueueIsADataRace) {
  const ir::Graph g = optimized("sample_cnn");
  const schedule::Plan plan = testing::planSample(g, "dynamic", smallDevice());
  ASSERT_TRUE(plan.programs.front().dynamic);
  // An edge whose consumer has no other producer and whose producer no
  // other consumer: once dropped, no gate count links the two.
  const schedule::DynamicProgram& dp = *plan.programs[0].dynamic;
  std::vector<int> producers(dp.ops.size(), 0);
  for (const schedule::DynamicOp& d : dp.ops)
    for (int32_t c : d.consumers) ++producers[static_cast<size_t>(c)];
  std::optional<std::pair<size_t, size_t>> edge;
  for (size_t p = 0; p < dp.ops.size() && !edge; ++p)
    if (dp.ops[p].consumers.size() == 1 && producers[static_cast<size_t>(dp.ops[p].consumers[0])] == 1)
      edge = std::make_pair(p, static_cast<size_t>(dp.ops[p].consumers[0]));
  ASSERT_TRUE(edge.has_value()) << "no single edge in the sample's dynamic program";
  const schedule::Plan broken = testing::withDynamicEdit(
      plan, 0, [&](schedule::DynamicProgram& d) { testing::dropEdge(d, edge->first, edge->second); });
  auto got = runtime::executeOnHost(broken, g, testing::seededInputs(g), tsanOptions());
  const std::string& from = plan.ops[static_cast<size_t>(dp.ops[edge->first].op)].name;
  const std::string& to = plan.ops[static_cast<size_t>(dp.ops[edge->second].op)].name;
  ASSERT_FALSE(got.ok()) << "the race of the dropped edge " << from << " -> " << to << " was not seen";
  EXPECT_NE(got.errorText().find("ThreadSanitizer reported"), std::string::npos) << got.errorText();
  EXPECT_NE(got.errorText().find("data race"), std::string::npos) << got.errorText();
  std::cout << "dropped the edge " << from << " -> " << to << ":\n" << got.errorText().substr(0, 600) << "\n";
}

// The first barrier whose removal leaves a consumer unordered after its
// producer, and why the analysis says so.
struct NeededBarrier {
  int program = 0;
  schedule::Slot slot;
  std::string why;
};
std::optional<NeededBarrier> firstNeededBarrier(const schedule::Plan& plan, const ir::Graph& g) {
  auto analysis = schedule::BarrierRemoval::analyse(plan, g);
  if (!analysis.ok()) throw std::runtime_error(analysis.errorText());
  for (const auto& [program, slot] : analysis->barriers()) {
    auto v = analysis->without(program, slot);
    if (v.ok() && v->needed) return NeededBarrier{program, slot, v->problem.message};
  }
  return std::nullopt;
}

TEST(HostTsanNegative, RemovingANeededBarrierIsADataRace) {
  const ir::Graph g = optimized("sample_cnn");
  const schedule::Plan plan = wavefront(g);
  const std::optional<NeededBarrier> needed = firstNeededBarrier(plan, g);
  ASSERT_TRUE(needed.has_value()) << "no needed barrier in the plan";
  const std::string& why = needed->why;
  const schedule::Plan broken = testing::withoutBarrier(plan, static_cast<size_t>(needed->program), needed->slot);
  auto got = runtime::executeOnHost(broken, g, testing::seededInputs(g), tsanOptions());
  ASSERT_FALSE(got.ok()) << "the race of a missing barrier was not seen (" << why << ")";
  EXPECT_NE(got.errorText().find("ThreadSanitizer reported"), std::string::npos) << got.errorText();
  EXPECT_NE(got.errorText().find("data race"), std::string::npos) << got.errorText();
  std::cout << "removed the barrier at program " << needed->program << ", vEU " << needed->slot.veu << ", order "
            << needed->slot.order << " (" << why << "):\n"
            << got.errorText().substr(0, 600) << "\n";
}

TEST(HostTsanNegative, RemovingASyncthreadsFromAnRKernelIsADataRace) {
  const ir::Graph g = optimized("sample_cnn");
  // The global pool as a block reduction, whichever variant the cost model prefers.
  schedule::Constraints pins;
  pins.kernelFor["gap"] = "global_avgpool_block";
  const schedule::Plan plan = testing::planSample(g, "wavefront", smallDevice(), pins);
  auto gp = codegen::generateProgram(plan, g, {codegen::Target::Host, true});
  ASSERT_TRUE(gp.ok()) << gp.errorText();
  // A block reduction (block_reduce.cuh): every thread stores its partial
  // sum, a barrier, then threads read each other's. The pool's body
  // (global_pool.cuh) gets a copy that reduces without that barrier; every
  // other rKernel keeps the library's.
  std::string& s = gp->source;
  std::string racy(kernels::cudaLibrary(kernels::kBlockReduce));
  const std::regex store(R"(( +if \(tid < T\) smem\[tid\] = v;\n)( +__syncthreads\(\);\n))");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(racy, m, store)) << "no store-then-barrier in block_reduce.cuh";
  racy.erase(static_cast<size_t>(m.position(2)), static_cast<size_t>(m.length(2)));
  racy = racy.substr(racy.find("template <int T, int SEG, class OP>"));
  racy = racy.substr(0, racy.find("#endif"));
  racy.replace(racy.find("rammer_segment_reduce("), 21, "rammer_segment_reduce_racy");
  // The block-per-plane body, calling the racy reduction.
  const std::string pool(kernels::cudaLibrary(kernels::kGlobalPool));
  const size_t bodyAt = pool.rfind("template <", pool.find("rammer_global_pool_block("));
  ASSERT_NE(bodyAt, std::string::npos) << "no rammer_global_pool_block in global_pool.cuh";
  std::string body = pool.substr(bodyAt, pool.find("\n}\n", bodyAt) + 3 - bodyAt);
  body.replace(body.find("rammer_global_pool_block("), 24, "rammer_global_pool_block_racy");
  const size_t reduceAt = body.find("rammer_segment_reduce<");
  ASSERT_NE(reduceAt, std::string::npos) << "the block-per-plane pool does not reduce with block_reduce.cuh";
  body.replace(reduceAt, 21, "rammer_segment_reduce_racy");
  // The rKernel function that pools a block per plane (after the library files).
  const size_t callAt = s.find("rammer_global_pool_block<", s.find("// ---- rKernel functions"));
  ASSERT_NE(callAt, std::string::npos) << "no block-per-plane pool in the sample's kernels";
  const size_t fnAt = s.rfind("__device__ void ", callAt);
  const std::string function = s.substr(fnAt + 16, s.find('(', fnAt) - fnAt - 16);
  s.replace(callAt, std::string("rammer_global_pool_block<").size(), "rammer_global_pool_block_racy<");
  s.insert(fnAt, racy + body);
  // Its wrapper's syncCount, one lower now.
  const std::regex wrapper("RAMMER_BLOCK_THREADS\\((\\d+), " + function + "\\(");
  ASSERT_TRUE(std::regex_search(s, m, wrapper)) << function;
  const int syncs = std::stoi(m[1].str());
  s.replace(static_cast<size_t>(m.position(1)), static_cast<size_t>(m.length(1)), std::to_string(syncs - 1));

  runtime::HostExecutionOptions o = tsanOptions();
  auto build = runtime::buildHostProgram(*gp, o.build);
  ASSERT_TRUE(build.ok()) << build.errorText();
  auto got = runtime::runHostProgram(runtime::HostProgram{*gp, *build}, plan, g, testing::seededInputs(g), o);
  ASSERT_FALSE(got.ok()) << "the race of a missing __syncthreads in " << function << " was not seen";
  EXPECT_NE(got.errorText().find("ThreadSanitizer reported"), std::string::npos) << got.errorText();
  // TSan's report names the innermost frames: the injected reduction inside
  // the injected body, which only `function` calls.
  EXPECT_NE(got.errorText().find("rammer_segment_reduce_racy"), std::string::npos) << got.errorText();
  EXPECT_NE(got.errorText().find("rammer_global_pool_block_racy"), std::string::npos)
      << "the race is in " << function << "'s pool body:\n"
      << got.errorText();
}

// RAMMER_HOST_TSAN_FIBERS set for one scope (the host program inherits it).
class ScopedFiberLimit {
 public:
  explicit ScopedFiberLimit(int limit) { setenv("RAMMER_HOST_TSAN_FIBERS", std::to_string(limit).c_str(), 1); }
  ~ScopedFiberLimit() { unsetenv("RAMMER_HOST_TSAN_FIBERS"); }
  ScopedFiberLimit(const ScopedFiberLimit&) = delete;
  ScopedFiberLimit& operator=(const ScopedFiberLimit&) = delete;
};

// A fiber limit that leaves each of tsanOptions()'s 2 workers, after the
// vEU fibers (one per vEU of the largest launch), room for one block's
// threads and a few more: a fan-out on another vEU of the worker retires a
// set. Fails the test if the plan's launches together have too few vEUs to
// need more than that (a lower bound: not every vEU runs an rTask on fibers).
int recyclingLimit(const schedule::Plan& plan, const ir::Graph& g) {
  auto gp = codegen::generateProgram(plan, g, {codegen::Target::Host, true});
  if (!gp.ok()) throw std::runtime_error(gp.errorText());
  int veus = 0, threads = 0, fanningVeus = 0;
  for (const codegen::KernelLaunch& l : gp->launches) {
    veus = std::max(veus, l.gridBlocks);
    threads = std::max(threads, l.blockThreads);
    fanningVeus += l.gridBlocks;
  }
  const int workers = tsanOptions().workers;
  EXPECT_GT(fanningVeus * threads, workers * (threads + 32)) << "a plan whose blocks would fit without retiring";
  return veus + workers * (threads + 32);
}

TEST(HostTsanRecycled, RetiringThreadFibersAtEveryFanOutKeepsThePlanRaceFreeAndRight) {
  for (const std::string policy : {"wavefront", "dynamic"}) {
    const ir::Graph g = optimized("inception_block");
    const schedule::Plan plan = testing::planSample(g, policy, smallDevice());
    const int limit = recyclingLimit(plan, g);
    ScopedFiberLimit scoped(limit);
    double seconds = 0;
    expectRaceFreeAndRight(plan, g, &seconds);
    std::cout << policy << " under a limit of " << limit << " fibers: 0 ThreadSanitizer reports, run " << seconds
              << " s\n";
  }
}

TEST(HostTsanRecycled, RemovingANeededBarrierIsStillADataRace) {
  const ir::Graph g = optimized("sample_cnn");
  const schedule::Plan plan = wavefront(g);
  const std::optional<NeededBarrier> needed = firstNeededBarrier(plan, g);
  ASSERT_TRUE(needed.has_value()) << "no needed barrier in the plan";
  const schedule::Plan broken = testing::withoutBarrier(plan, static_cast<size_t>(needed->program), needed->slot);
  ScopedFiberLimit scoped(recyclingLimit(broken, g));
  auto got = runtime::executeOnHost(broken, g, testing::seededInputs(g), tsanOptions());
  ASSERT_FALSE(got.ok()) << "with thread fibers retired, the race of a missing barrier was not seen";
  EXPECT_NE(got.errorText().find("data race"), std::string::npos) << got.errorText();
}

}  // namespace
}  // namespace rammer

// Graph launches (LaunchMode::Graph) against the stand-in driver
// (fake_driver/fake_cuda.cpp), which records what a capturing stream is
// given and replays it: the same outputs as stream launches, one capture
// per run, replays that run the kernels, steps reset at the start of each
// replay (proven needed: without it the epoch, fixed in the graph, lets a
// replay take the last one's steps for its own), the recording run on the
// stream, the watchdog naming the graph, nothing left behind, and a driver
// without graphs refusing them in words.
#include <gtest/gtest.h>

#include <array>

#include "core/runtime/cuda_graph.h"
#include "core/runtime/gpu_execution.h"
#include "core/runtime/timing_decoder.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/runtime/fake_driver/fake_driver_fixture.h"

namespace rammer::runtime {
namespace {

#ifdef RAMMER_FAKE_CUDA
using fake::seen;

class FakeDriverGraph : public fake::FakeDriver {
 protected:
  static GpuRunOptions graphRuns(int warmup, int repeat) {
    GpuRunOptions o;
    o.warmup = warmup;
    o.repeat = repeat;
    o.launch = LaunchMode::Graph;
    return o;
  }
};

std::vector<float> valuesOf(const ir::Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

TEST_F(FakeDriverGraph, AGraphRunComputesWhatAStreamRunDoesAndLeavesNothingBehind) {
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  GpuRunOptions o = graphRuns(2, 3);
  o.launch = LaunchMode::Stream;
  auto stream = run(*runner, testing::handProgram(), o);
  ASSERT_TRUE(stream.ok()) << stream.errorText();
  EXPECT_EQ(stream->launch, LaunchMode::Stream);
  EXPECT_EQ(hooks_->captures(), 0);

  auto graph = run(*runner, testing::handProgram(), graphRuns(2, 3));
  ASSERT_TRUE(graph.ok()) << graph.errorText();
  EXPECT_EQ(graph->launch, LaunchMode::Graph);
  ASSERT_EQ(graph->outputs.size(), stream->outputs.size());
  // The sum output is cleared before its launch: replays clear it too, or it would hold five runs' sums.
  for (size_t k = 0; k < graph->outputs.size(); ++k)
    EXPECT_EQ(valuesOf(graph->outputs[k]), valuesOf(stream->outputs[k])) << "output " << k;
  EXPECT_EQ(graph->timing, stream->timing);
  EXPECT_EQ(graph->latencyUs, std::vector<double>(3, 250.0)) << "one pair of events around each timed replay";
  EXPECT_EQ(hooks_->liveAllocations(), 0);
  EXPECT_EQ(hooks_->liveGraphs(), 0) << "the graph and its executable graph are destroyed";
}

TEST_F(FakeDriverGraph, CapturesOncePerRunAndReplaysEveryWarmupAndTimedRun) {
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  auto r = run(*runner, testing::handProgram(), graphRuns(2, 5));
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(hooks_->captures(), 1);
  EXPECT_EQ(hooks_->instantiations(), 1);
  EXPECT_EQ(hooks_->replays(), 7);
  // Both programs per replay, then the recording run's two on the stream.
  EXPECT_EQ(hooks_->launches(), 16);
  // The epoch is fixed in the graph; the recording run takes the next one.
  EXPECT_EQ(seen.epochs, (std::vector<unsigned long long>{1, 1, 1, 1, 1, 1, 1, 2}));
  EXPECT_EQ(seen.staleViolations, 0) << "every replay must start from zeroed steps";
  EXPECT_EQ(seen.waitViolations, 0);
  EXPECT_EQ(seen.timedLaunches, 1) << "only the recording run passes the timing buffer";
  ASSERT_EQ(r->timing.size(), 15u);
  auto trace = decodeTiming(testing::handPlan(), testing::handProgram(), r->timing, {runner->deviceName(), 4});
  ASSERT_TRUE(trace.ok()) << trace.errorText();
  EXPECT_EQ(trace->tasks.size(), 5u);

  auto again = run(*runner, testing::handProgram(), graphRuns(0, 1));
  ASSERT_TRUE(again.ok()) << again.errorText();
  EXPECT_EQ(hooks_->captures(), 2) << "one capture per run()";
  EXPECT_EQ(hooks_->instantiations(), 2);
}

TEST_F(FakeDriverGraph, AnUninstrumentedProgramIsOnlyReplayed) {
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  codegen::GeneratedProgram p = testing::handProgram();
  p.numTimedEvents = 0;
  auto r = run(*runner, p, graphRuns(1, 3));
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(seen.epochs, (std::vector<unsigned long long>{1, 1, 1, 1}));
  EXPECT_EQ(seen.staleViolations, 0);
  EXPECT_EQ(hooks_->launches(), 8);
  EXPECT_TRUE(r->timing.empty());
  EXPECT_EQ(r->latencyUs.size(), 3u);
}

// The runner's reset, taken away: two replays of one captured launch at a
// fixed epoch. The second finds the first one's steps already at its own
// epoch, so a barrier would let a vEU run ahead of its producers; the host
// kernel's check sees it on both vEUs. With the reset captured first, none.
TEST_F(FakeDriverGraph, ReplaysAtOneEpochSeeStaleStepsUnlessTheGraphClearsThem) {
  const CudaDriver& d = *driver_;
  cu::Module module = nullptr;
  ASSERT_EQ(d.cuModuleLoadData(&module, compiled_.cubin.data()), cu::kSuccess);
  cu::Function f = nullptr;
  ASSERT_EQ(d.cuModuleGetFunction(&f, module, "hand_program0"), cu::kSuccess);
  std::vector<cu::DevicePtr> memory;
  auto alloc = [&](size_t bytes) {
    cu::DevicePtr p = 0;
    EXPECT_EQ(d.cuMemAlloc(&p, bytes), cu::kSuccess);
    memory.push_back(p);
    return p;
  };
  std::array<cu::DevicePtr, 6> table{};
  for (size_t i = 0; i < 5; ++i) table[i] = alloc(testing::kN * sizeof(float));
  table[5] = table[2];  // y's view
  cu::DevicePtr buffers = alloc(sizeof table), steps = alloc(2 * sizeof(uint64_t)), timing = 0;
  ASSERT_EQ(d.cuMemcpyHtoD(buffers, table.data(), sizeof table), cu::kSuccess);
  cu::Stream stream = nullptr;
  ASSERT_EQ(d.cuStreamCreate(&stream, cu::kStreamNonBlocking), cu::kSuccess);

  auto staleAfterTwoReplays = [&](bool reset) {
    seen = fake::Seen{};
    EXPECT_EQ(d.cuMemsetD32Async(steps, 0, 4, stream), cu::kSuccess);  // the first replay starts from zero
    unsigned long long epoch = 1;
    int launch = 0;
    std::array<void*, 5> args = {&buffers, &steps, &epoch, &timing, &launch};
    auto graph = captureGraph(d, stream, [&]() -> ir::Result<bool> {
      if (reset)
        if (auto ok = d.check(d.cuMemsetD32Async(steps, 0, 4, stream), "reset"); !ok) return ok;
      return d.check(d.cuLaunchKernel(f, 2, 1, 1, 128, 1, 1, 0, stream, args.data(), nullptr), "launch");
    });
    EXPECT_TRUE(graph.ok()) << graph.errorText();
    if (!graph.ok()) return -1;
    epoch = 99;  // captured by value: the replays keep 1
    for (int i = 0; i < 2; ++i) EXPECT_EQ(d.graphs.cuGraphLaunch(graph->exec, stream), cu::kSuccess);
    destroyGraph(d, *graph);
    EXPECT_EQ(seen.epochs, (std::vector<unsigned long long>{1, 1}));
    return seen.staleViolations;
  };
  EXPECT_EQ(staleAfterTwoReplays(false), 2) << "the second replay must see the first one's steps";
  EXPECT_EQ(staleAfterTwoReplays(true), 0);

  d.cuStreamDestroy(stream);
  for (cu::DevicePtr p : memory) d.cuMemFree(p);
  d.cuModuleUnload(module);
  EXPECT_EQ(hooks_->liveAllocations(), 0);
  EXPECT_EQ(hooks_->liveGraphs(), 0);
}

TEST_F(FakeDriverGraph, AFailedCaptureIsEndedAndLeavesNoGraph) {
  const CudaDriver& d = *driver_;
  cu::Stream stream = nullptr;
  ASSERT_EQ(d.cuStreamCreate(&stream, cu::kStreamNonBlocking), cu::kSuccess);
  auto failed = captureGraph(d, stream, []() -> ir::Result<bool> { return ir::makeError("the enqueue failed"); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.errorText().find("the enqueue failed"), 0u) << failed.errorText();
  EXPECT_EQ(hooks_->liveGraphs(), 0);
  // The stream is not left capturing: it captures again.
  auto empty = captureGraph(d, stream, []() -> ir::Result<bool> { return true; });
  ASSERT_TRUE(empty.ok()) << empty.errorText();
  EXPECT_EQ(hooks_->captures(), 2);
  destroyGraph(d, *empty);
  EXPECT_EQ(hooks_->liveGraphs(), 0);
  d.cuStreamDestroy(stream);
}

TEST_F(FakeDriverGraph, AHangingReplayTripsTheWatchdogNamingTheGraph) {
  auto runner = openRunnerWhereProgram1Hangs();
  ASSERT_TRUE(runner);
  GpuRunOptions o = watchdogAfter200ms();
  o.launch = LaunchMode::Graph;
  auto r = run(*runner, testing::handProgram(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("the CUDA graph of 2 launches (programs 0-1) did not finish in 0.2 s (barrier "
                               "deadlock?); launched as a stream, the run would name the program that hangs"),
            std::string::npos)
      << r.errorText();
  EXPECT_EQ(hooks_->liveGraphs(), 2) << "a wedged runner keeps the graph a replay may still run";
  expectWedged(*runner, o);
}

TEST_F(FakeDriverGraph, ADriverWithoutGraphsRefusesGraphLaunchesAndStillRunsStreams) {
  auto lib = SharedLibrary::open({RAMMER_FAKE_CUDA_NO_GRAPHS});
  ASSERT_TRUE(lib.ok()) << lib.errorText();
  const FakeCudaHooks* hooks = fake::hooksOf(**lib);
  ASSERT_NE(hooks, nullptr);
  hooks->reset(1, 4, 8);
  hooks->registerKernel("hand_program0", fake::hostProgram0, 0);
  hooks->registerKernel("hand_program1", fake::hostProgram1, 0);
  auto driver = CudaDriver::load(RAMMER_FAKE_CUDA_NO_GRAPHS);
  ASSERT_TRUE(driver.ok()) << driver.errorText();
  EXPECT_FALSE((*driver)->hasGraphs());
  EXPECT_EQ((*driver)->graphsMissing,
            "cuStreamBeginCapture_v2, cuStreamEndCapture, cuGraphInstantiateWithFlags, cuGraphLaunch, "
            "cuGraphExecDestroy, cuGraphDestroy");
  auto runner = CudaRunner::open(*driver);
  ASSERT_TRUE(runner.ok()) << runner.errorText();
  auto graph = run(**runner, testing::handProgram(), graphRuns(1, 1));
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.errorText().find("graph launches need the driver's stream capture and graph entry points (CUDA "
                                   "11.4 and later), and "),
            std::string::npos)
      << graph.errorText();
  EXPECT_NE(graph.errorText().find("lacks cuStreamBeginCapture_v2, "), std::string::npos) << graph.errorText();
  EXPECT_EQ(hooks->launches(), 0);
  GpuRunOptions o = graphRuns(1, 1);
  o.launch = LaunchMode::Stream;
  auto stream = run(**runner, testing::handProgram(), o);
  ASSERT_TRUE(stream.ok()) << stream.errorText();
  EXPECT_EQ(stream->launch, LaunchMode::Stream);
  EXPECT_EQ(hooks->liveAllocations(), 0);
}

// A sequential plan (one program per operator) generated, compiled with
// NVRTC and run as graphs: the plain build's and the instrumented build's.
TEST_F(FakeDriverGraph, ExecuteOnGpuReplaysASequentialPlan) {
  if (!NvrtcCompiler::load().ok()) GTEST_SKIP() << "skipped: no NVRTC";
  ir::Graph graph;
  schedule::Plan plan;
  auto r = executeSample("sequential", graphRuns(1, 3), graph, plan);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r->run.launch, LaunchMode::Graph);
  EXPECT_EQ(r->run.latencyUs.size(), 3u);
  const int launches = static_cast<int>(r->resources.size());
  ASSERT_GT(launches, 5) << "a sequential plan launches one kernel per operator";
  EXPECT_EQ(hooks_->captures(), 2);
  // Plain build: 1 + 3 replays; instrumented: 1 + 1. Each build's run ends
  // with a recording run on the stream (the generator sets numTimedEvents
  // whether or not the kernels record).
  EXPECT_EQ(hooks_->replays(), 6);
  EXPECT_EQ(hooks_->launches(), 8 * launches);
  ASSERT_TRUE(r->trace.has_value());
  EXPECT_EQ(hooks_->liveAllocations(), 0);
  EXPECT_EQ(hooks_->liveGraphs(), 0);
}
#else
TEST(FakeDriverGraph, NotBuilt) { GTEST_SKIP() << "the stand-in driver library was not built"; }
#endif

}  // namespace
}  // namespace rammer::runtime

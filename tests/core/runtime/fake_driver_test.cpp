// The runner's wiring against a stand-in driver (fake_driver/fake_cuda.cpp)
// whose "kernels" are host functions: buffers and views, uploads, zeroing
// before each launch, epochs, the recording run, output binding, freeing,
// the watchdog and the occupancy refusal, all without a GPU (graph launches:
// fake_driver_graph_test.cpp).
#include <gtest/gtest.h>

#include "core/runtime/cuda_probe.h"
#include "core/runtime/cuda_runner.h"
#include "core/runtime/gpu_execution.h"
#include "core/runtime/timing_decoder.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/runtime/fake_driver/fake_driver_fixture.h"

namespace rammer::runtime {
namespace {

#ifdef RAMMER_FAKE_CUDA
using fake::FakeDriver;
using fake::seen;

TEST_F(FakeDriver, ProbeDescribesTheDevice) {
  ProbeOptions o;
  o.driverLibrary = RAMMER_FAKE_CUDA;
  CudaCapability c = probeCuda(o);
  EXPECT_TRUE(c.driverLoaded);
  EXPECT_EQ(c.deviceCount, 1);
  EXPECT_EQ(c.deviceName, "Fake GPU");
  EXPECT_EQ(c.sms, 4);
  EXPECT_EQ(c.computeCapability(), "9.0");
  EXPECT_EQ(c.driverVersion, 13000);
  EXPECT_EQ(c.message.rfind("Fake GPU (compute 9.0, 4 SMs), driver 13.0", 0), 0u) << c.message;
  hooks_->reset(0, 4, 8);
  c = probeCuda(o);
  EXPECT_TRUE(c.driverLoaded);
  EXPECT_FALSE(c.canRun());
  EXPECT_EQ(c.message.rfind("CUDA driver loaded but no GPU", 0), 0u) << c.message;
}

TEST_F(FakeDriver, RunsWarmupTimedAndRecordingRunsAndFreesEverything) {
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  EXPECT_EQ(runner->deviceName(), "Fake GPU");
  EXPECT_EQ(runner->arch(), "sm_90");
  GpuRunOptions o;
  o.warmup = 2;
  o.repeat = 5;
  auto r = run(*runner, testing::handProgram(), o);
  ASSERT_TRUE(r.ok()) << r.errorText();
  // 2 warm-up + 5 timed + 1 recording run, epochs 1..8.
  EXPECT_EQ(seen.epochs, (std::vector<unsigned long long>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(hooks_->launches(), 16);
  EXPECT_EQ(seen.staleViolations, 0) << "steps must start at zero and runs must use new epochs";
  EXPECT_EQ(seen.waitViolations, 0);
  EXPECT_EQ(seen.timedLaunches, 1) << "only the recording run passes the timing buffer";
  EXPECT_TRUE(seen.viewAliased) << "a view's pointer is its storage's";
  EXPECT_EQ(r->latencyUs, std::vector<double>(5, 250.0));
  EXPECT_EQ(r->blocksPerSM, (std::vector<int>{8, 8}));
  EXPECT_EQ(r->registers, (std::vector<int>{32, 32}));

  ASSERT_EQ(r->outputs.size(), 2u);
  EXPECT_EQ(r->outputs[0].shape(), (ir::Shape{testing::kN}));
  const auto want = testing::handExpectedZ();
  double sum = 0;
  for (int i = 0; i < testing::kN; ++i) {
    EXPECT_NEAR(r->outputs[0].data<float>()[i], want[static_cast<size_t>(i)], 1e-5) << i;
    sum += r->outputs[0].data<float>()[i];
  }
  // Zeroed before every launch: one run's sum, not eight runs' (or garbage).
  EXPECT_NEAR(r->outputs[1].data<float>()[0], sum, 1e-3);

  ASSERT_EQ(r->timing.size(), 15u);
  auto trace = decodeTiming(testing::handPlan(), testing::handProgram(), r->timing, {runner->deviceName(), 4});
  ASSERT_TRUE(trace.ok()) << trace.errorText();
  EXPECT_EQ(trace->tasks.size(), 5u);
  EXPECT_DOUBLE_EQ(trace->totalUs, 5.0);  // 1000 ns .. 6000 ns
  EXPECT_EQ(hooks_->liveAllocations(), 0);
}

TEST_F(FakeDriver, AnUninstrumentedProgramHasNoRecordingRun) {
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  codegen::GeneratedProgram p = testing::handProgram();
  p.numTimedEvents = 0;
  GpuRunOptions o;
  o.warmup = 0;
  o.repeat = 3;
  auto r = run(*runner, p, o);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(seen.epochs.size(), 3u);
  EXPECT_EQ(seen.timedLaunches, 0);
  EXPECT_TRUE(r->timing.empty());
  EXPECT_EQ(r->latencyUs.size(), 3u);
}

TEST_F(FakeDriver, TheWatchdogNamesTheHangingProgramAndWedgesTheRunner) {
  auto runner = openRunnerWhereProgram1Hangs();
  ASSERT_TRUE(runner);
  const GpuRunOptions o = watchdogAfter200ms();
  auto r = run(*runner, testing::handProgram(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("program 1 did not finish in 0.2 s (barrier deadlock?)"), std::string::npos)
      << r.errorText();
  EXPECT_GT(hooks_->liveAllocations(), 0) << "a wedged runner must not free memory a kernel may still use";
  expectWedged(*runner, o);
}

// A dynamic program's kernel waits on its ready queue: the watchdog says so.
TEST_F(FakeDriver, TheWatchdogSaysADynamicProgramWaitsOnItsQueue) {
  auto runner = openRunnerWhereProgram1Hangs();
  ASSERT_TRUE(runner);
  codegen::GeneratedProgram p = testing::handProgram();
  p.launches[1].table.queue = 0;  // as if program 1 were dynamic
  auto r = run(*runner, p, watchdogAfter200ms());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("program 1 did not finish in 0.2 s (a ready-queue gate that never opens?)"),
            std::string::npos)
      << r.errorText();
}

TEST_F(FakeDriver, ThePersistentGridMustBeCoResident) {
  hooks_->reset(1, 4, 1);  // 4 SMs x 1 block
  hooks_->registerKernel("hand_program0", fake::hostProgram0, 0);
  hooks_->registerKernel("hand_program1", fake::hostProgram1, 0);
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  codegen::GeneratedProgram p = testing::handProgram();
  p.launches[1].gridBlocks = 5;
  auto r = run(*runner, p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("program 1 (kernel hand_program1) has 5 vEUs but the driver fits only 1 blocks per SM "
                               "x 4 SMs = 4 on Fake GPU"),
            std::string::npos)
      << r.errorText();
  EXPECT_EQ(hooks_->launches(), 0);
  EXPECT_EQ(hooks_->liveAllocations(), 0);
  // An ordinary (non-persistent) kernel's blocks may run in waves.
  p.launches[1].persistent = false;
  auto ok = run(*runner, p);
  EXPECT_TRUE(ok.ok()) << ok.errorText();
}

TEST_F(FakeDriver, AKernelThatFitsNowhereIsRefused) {
  hooks_->reset(1, 4, 0);
  hooks_->registerKernel("hand_program0", fake::hostProgram0, 0);
  hooks_->registerKernel("hand_program1", fake::hostProgram1, 0);
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  auto r = run(*runner, testing::handProgram());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("program 0 (kernel hand_program0) cannot run on Fake GPU"), std::string::npos)
      << r.errorText();
}

TEST_F(FakeDriver, DriverErrorsAndBadProgramsAreMessages) {
  auto runner = openRunner();
  ASSERT_TRUE(runner);
  codegen::GeneratedProgram p = testing::handProgram();
  p.launches[1].kernel = "hand_program9";
  auto r = run(*runner, p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("cuModuleGetFunction(hand_program9) failed: CUDA_ERROR_NOT_FOUND (named symbol not "
                               "found)"),
            std::string::npos)
      << r.errorText();

  p = testing::handProgram();
  p.buffers[5].storage = 4;  // a 256-element view of a 1-element storage
  r = run(*runner, p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("'y_view' (256 elements at 0) does not fit its storage 's' (1)"), std::string::npos)
      << r.errorText();

  p = testing::handProgram();
  p.launches[1].zeroBuffers = {17};
  r = run(*runner, p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("zeroes buffer 17"), std::string::npos) << r.errorText();

  r = runner->run(testing::handGraph(), testing::handProgram(), compiled_, {}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("the model has 1 inputs, 0 given"), std::string::npos) << r.errorText();

  ir::Graph g = testing::handGraph();
  g.value(1).constant.reset();
  r = runner->run(g, testing::handProgram(), compiled_,
                  {ir::Tensor::fromVector<float>({testing::kN}, testing::handInput())}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("weight buffer 'w' has no constant data"), std::string::npos) << r.errorText();
  EXPECT_EQ(hooks_->liveAllocations(), 0) << "every failed run frees what it allocated";
  EXPECT_FALSE(runner->wedged());
}
// Generated code, NVRTC and the resource check for real; the launches do
// nothing, so the outputs are whatever memory held and no rTask records.
TEST_F(FakeDriver, ExecuteOnGpuGoesThroughTheWholePipeline) {
  if (!NvrtcCompiler::load().ok()) GTEST_SKIP() << "skipped: no NVRTC";
  ir::Graph graph;
  schedule::Plan plan;
  GpuRunOptions o;
  o.repeat = 2;
  auto r = executeSample("wavefront", o, graph, plan);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r->deviceName, "Fake GPU");
  EXPECT_EQ(r->arch, "sm_90");
  EXPECT_EQ(r->resources.size(), plan.programs.size());
  EXPECT_EQ(r->run.latencyUs.size(), 2u);
  ASSERT_EQ(r->run.outputs.size(), graph.outputs().size());
  for (size_t i = 0; i < graph.outputs().size(); ++i)
    EXPECT_EQ(r->run.outputs[i].shape(), graph.value(graph.outputs()[i]).type.shape);
  // The timing buffer is cleared before the recording run: nothing recorded
  // reads as nothing, not as the garbage the memory started with.
  ASSERT_TRUE(r->trace.has_value());
  EXPECT_TRUE(r->trace->tasks.empty());
  EXPECT_EQ(r->trace->metrics.at("unrecorded_rtasks"), static_cast<double>(plan.numRTasks()));
  EXPECT_EQ(hooks_->liveAllocations(), 0);
}

TEST(GpuExecution, WithoutADriverSaysWhatIsMissing) {
  schedule::Plan plan = testing::handPlan();
  GpuExecutionOptions o;
  o.libraries.driverLibrary = "libcuda_rammer_missing.so.1";
  auto r = executeOnGpu(plan, testing::handGraph(), {}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("cannot run on a GPU: no CUDA driver (libcuda_rammer_missing.so.1 not found)"),
            std::string::npos)
      << r.errorText();
}
#else
TEST(FakeDriver, NotBuilt) { GTEST_SKIP() << "the stand-in driver library was not built"; }
#endif

}  // namespace
}  // namespace rammer::runtime

// The profiling session end to end on the runtime tests' stand-in driver
// (host "kernels" that write known rTask timestamps), and on a real GPU
// where there is one (skipped otherwise).
#include <gtest/gtest.h>

#include "core/runtime/cuda_probe.h"
#include "profiler/profile_session.h"
#include "tests/core/runtime/fake_driver/fake_cuda.h"
#include "tests/core/runtime/runtime_fixtures.h"

namespace rammer::profiler {
namespace {

std::vector<ir::Tensor> handInputs() { return {ir::Tensor::fromVector<float>({testing::kN}, testing::handInput())}; }

#ifdef RAMMER_FAKE_CUDA

unsigned long long* timingArg(void** params) {
  return reinterpret_cast<unsigned long long*>(*static_cast<unsigned long long*>(params[3]));
}
void stamp(unsigned long long* timing, int event, unsigned long long startNs, unsigned long long endNs, int sm) {
  timing[3 * event] = startNs;
  timing[3 * event + 1] = endNs;
  timing[3 * event + 2] = static_cast<unsigned long long>(sm);
}
// hand_program0's events: 0 = mul rTask 0, 1 = mul rTask 1, 2 = mirror
// rTask 0, 3 = mirror rTask 1 (runtime_fixtures.h). Only timings matter here.
void program0(int, int, void** params) {
  if (auto* t = timingArg(params)) {
    stamp(t, 0, 1000, 3000, 0);  // 2 us
    stamp(t, 1, 1000, 2000, 1);  // 1 us
    stamp(t, 2, 4000, 8000, 1);  // 4 us
    stamp(t, 3, 4000, 7000, 0);  // 3 us
  }
}
void program1(int, int, void** params) {
  if (auto* t = timingArg(params)) stamp(t, 4, 9000, 9500, 2);  // 0.5 us
}

class ProfileSessionOnStandIn : public ::testing::Test {
 protected:
  void SetUp() override {
    auto lib = runtime::SharedLibrary::open({RAMMER_FAKE_CUDA});
    ASSERT_TRUE(lib.ok()) << lib.errorText();
    lib_ = *lib;
    auto hooks = reinterpret_cast<const FakeCudaHooks* (*)()>(lib_->find("fake_cuda_hooks"))();
    hooks->reset(1, 4, 8);
    hooks->registerKernel("hand_program0", program0, 0);
    hooks->registerKernel("hand_program1", program1, 0);
    auto driver = runtime::CudaDriver::load(RAMMER_FAKE_CUDA);
    ASSERT_TRUE(driver.ok()) << driver.errorText();
    driver_ = *driver;
    auto runner = runtime::CudaRunner::open(driver_);
    ASSERT_TRUE(runner.ok()) << runner.errorText();
    runner_ = std::move(runner).value();
    instrumented_.program = testing::handProgram();
    instrumented_.compiled.arch = "sm_90";
    instrumented_.compiled.cubin = {'c', 'u', 'b', 'i', 'n'};
    plain_ = instrumented_;
    plain_.program.numTimedEvents = 0;
    for (auto& l : plain_.program.launches) l.timedTasks.clear();
    capability_.timestampsMessage = "unavailable: no CUPTI in this test";
    capability_.countersMessage = "unavailable: no CUPTI in this test";
  }

  std::shared_ptr<runtime::SharedLibrary> lib_;
  std::shared_ptr<const runtime::CudaDriver> driver_;
  std::unique_ptr<runtime::CudaRunner> runner_;
  ProfileBuild plain_, instrumented_;
  ProfilerCapability capability_;
};

TEST_F(ProfileSessionOnStandIn, FillsTheDatabaseFromRTaskTimestampsAndLabelsEstimates) {
  ProfileTarget target{*driver_, *runner_, capability_, nullptr};
  ProfileOptions o;
  o.warmup = 1;
  o.repeat = 3;
  auto r = profileBuilds(target, testing::handPlan(), testing::handGraph(), plain_, instrumented_, handInputs(), o);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r->deviceName, "Fake GPU");
  EXPECT_EQ(r->sms, 4);
  EXPECT_EQ(r->latencyUs, (std::vector<double>{250, 250, 250})) << "the stand-in's events are 0.25 ms apart";
  EXPECT_EQ(r->timestampsNote, "unavailable: no CUPTI in this test");
  EXPECT_EQ(r->countersNote, "unavailable: no CUPTI in this test");
  ASSERT_EQ(r->trace.tasks.size(), 5u);

  ASSERT_EQ(r->programs.size(), 2u);
  const ProgramProfile& p0 = r->programs[0];
  EXPECT_EQ(p0.program, 0);
  EXPECT_EQ(p0.kernel, "hand_program0");
  EXPECT_EQ(p0.gridBlocks, 2);
  EXPECT_EQ(p0.blocksPerSM, 8);
  EXPECT_EQ(p0.registers, 32);
  EXPECT_EQ(p0.kernelTime.samples, 0) << "no CUPTI, no kernel records";
  EXPECT_DOUBLE_EQ(p0.rtaskSpanUs, 7.0);  // first start 1000 ns to last end 8000 ns
  // SM 0 busy [1,3] and [4,7], SM 1 [1,2] and [4,8]: 10 us of 4 SMs x 7 us.
  EXPECT_FALSE(p0.smEfficiencyPct.measured);
  EXPECT_NEAR(p0.smEfficiencyPct.value, 100.0 * 10 / 28, 1e-9);
  EXPECT_EQ(p0.smEfficiencyPct.source, "estimate: SM time in rTasks (rTask timestamps)");
  EXPECT_EQ(p0.warpActivityPct.source, "estimate: resident warps (occupancy)");
  EXPECT_EQ(p0.smCyclesActive.source, "estimate: rTask span x clock");

  // Per-rTask times per rKernel, for the plan's device.
  const sim::ProfileDB& db = r->db;
  EXPECT_EQ(db.device(), "h100");
  EXPECT_EQ(db.gpu(), "Fake GPU");
  ASSERT_EQ(db.size(), 3u);
  const auto plan = testing::handPlan();
  const sim::ProfileEntry* mul = db.find(sim::profileKey(plan.ops[0].kernel), 1);
  const sim::ProfileEntry* mirror = db.find(sim::profileKey(plan.ops[1].kernel), 1);
  const sim::ProfileEntry* sum = db.find(sim::profileKey(plan.ops[2].kernel), 1);
  ASSERT_TRUE(mul && mirror && sum);
  EXPECT_EQ(mul->taskTime.samples, 2);
  EXPECT_DOUBLE_EQ(mul->taskTime.medianUs, 1.5);
  EXPECT_DOUBLE_EQ(mirror->taskTime.medianUs, 3.5);
  EXPECT_DOUBLE_EQ(sum->taskTime.medianUs, 0.5);
  EXPECT_EQ(sum->opType, "ReduceSum");
}

TEST_F(ProfileSessionOnStandIn, ARunThatRecordsNothingIsAnError) {
  auto lib = runtime::SharedLibrary::open({RAMMER_FAKE_CUDA});
  auto hooks = reinterpret_cast<const FakeCudaHooks* (*)()>((*lib)->find("fake_cuda_hooks"))();
  hooks->registerKernel("hand_program0", [](int, int, void**) {}, 0);
  hooks->registerKernel("hand_program1", [](int, int, void**) {}, 0);
  ProfileTarget target{*driver_, *runner_, capability_, nullptr};
  auto r = profileBuilds(target, testing::handPlan(), testing::handGraph(), plain_, instrumented_, handInputs(), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].message,
            "no rTask recorded a time in the instrumented run (5 unrecorded); nothing to put in the profile database");

  ProfileOptions zero;
  zero.repeat = 0;
  EXPECT_FALSE(profileBuilds(target, testing::handPlan(), testing::handGraph(), plain_, instrumented_, handInputs(),
                             zero)
                   .ok());
  auto notTimed = profileBuilds(target, testing::handPlan(), testing::handGraph(), plain_, plain_, handInputs(), {});
  ASSERT_FALSE(notTimed.ok());
  EXPECT_EQ(notTimed.errors()[0].message, "the instrumented build records no rTask timings");
}
#endif

TEST(ProfileSession, WithoutAGpuProfilePlanSaysWhatIsMissing) {
  if (runtime::probeCuda().canRun()) GTEST_SKIP() << "a GPU is present";
  schedule::Plan plan = testing::handPlan();
  auto r = profilePlan(plan, testing::handGraph(), handInputs());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.errors()[0].message.starts_with("cannot profile on the GPU: ")) << r.errorText();
  EXPECT_EQ(r.errors()[0].message.find("cannot profile on the GPU: " + runtime::probeCuda().message), 0u);
}

// On a GPU (tests/bench/gpu/run_profile_checks.sh): the hand-written plan's
// kernels are not generated code, so this profiles the runtime's hand
// program through profileBuilds with real CUPTI.
TEST(ProfileSession, OnAGpuKernelTimesCountersAndRTaskTimesAreMeasured) {
  const runtime::CudaCapability cuda = runtime::probeCuda();
  if (!cuda.canRun()) GTEST_SKIP() << "skipped: no GPU (" << cuda.message << ")";
  const ProfilerCapability cap = probeProfiler();
  auto driver = runtime::CudaDriver::load().value();
  auto nvrtc = runtime::NvrtcCompiler::load().value();
  auto runner = runtime::CudaRunner::open(driver);
  ASSERT_TRUE(runner.ok()) << runner.errorText();
  ProfileBuild instrumented{testing::handProgram(), {}};
  auto compiled = runtime::compileProgram(*nvrtc, instrumented.program, (*runner)->arch());
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  instrumented.compiled = *compiled;
  ProfileBuild plain = instrumented;
  plain.program.numTimedEvents = 0;
  std::shared_ptr<const CuptiLibrary> cupti;
  if (auto c = CuptiLibrary::load()) cupti = *c;
  ProfileTarget target{*driver, **runner, cap, cupti};
  ProfileOptions o;
  o.warmup = 1;
  o.repeat = 5;
  auto r = profileBuilds(target, testing::handPlan(), testing::handGraph(), plain, instrumented, handInputs(), o);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r->trace.tasks.size(), 5u);
  EXPECT_EQ(r->db.size(), 3u);
  ASSERT_EQ(r->programs.size(), 2u);
  for (const ProgramProfile& p : r->programs) {
    if (cap.kernelTimestamps) {
      EXPECT_EQ(p.kernelTime.samples, 5) << p.kernel << ": " << r->timestampsNote;
      EXPECT_GT(p.kernelTime.medianUs, 0.0);
    }
    if (cap.counters) {
      EXPECT_TRUE(p.smEfficiencyPct.measured) << r->countersNote;
      EXPECT_GE(p.smEfficiencyPct.value, 0.0);
      EXPECT_LE(p.smEfficiencyPct.value, 100.0);
      EXPECT_GT(p.warpActivityPct.value, 0.0);
      EXPECT_LE(p.warpActivityPct.value, 100.0);
      EXPECT_GT(p.smCyclesActive.value, 0.0);
    }
  }
  std::cout << "capability: " << cap.message << "\n";
}

}  // namespace
}  // namespace rammer::profiler

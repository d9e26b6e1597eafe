// Running on a real GPU. Each test skips with "skipped: no GPU" where the
// probe finds no driver or device (CI, the development machine); they run
// on the GPU machine through tests/bench/gpu/run_gpu_checks.sh.
#include <gtest/gtest.h>

#include <cmath>

#include "core/exec/reference_executor.h"
#include "core/runtime/cuda_probe.h"
#include "core/runtime/gpu_execution.h"
#include "core/runtime/cuda_runner.h"
#include "core/runtime/program_compiler.h"
#include "core/runtime/timing_decoder.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/runtime/runtime_fixtures.h"
#include "tests/support/param_names.h"

namespace rammer::runtime {
namespace {

struct Gpu {
  std::shared_ptr<const CudaDriver> driver;
  std::shared_ptr<const NvrtcCompiler> nvrtc;
  std::unique_ptr<CudaRunner> runner;
};

// The GPU, or a reason to skip.
std::string openGpu(Gpu& g) {
  const CudaCapability c = probeCuda();
  if (!c.canRun()) return "skipped: no GPU (" + c.message + ")";
  g.driver = CudaDriver::load().value();
  g.nvrtc = NvrtcCompiler::load().value();
  auto r = CudaRunner::open(g.driver);
  if (!r) return "skipped: no GPU (" + r.errorText() + ")";
  g.runner = std::move(r).value();
  return {};
}

#define REQUIRE_GPU(g)                              \
  Gpu g;                                            \
  if (auto why = openGpu(g); !why.empty()) GTEST_SKIP() << why

std::vector<ir::Tensor> handInputs() { return {ir::Tensor::fromVector<float>({testing::kN}, testing::handInput())}; }

TEST(GpuRun, HandWrittenProgramComputesWithBarriersViewsAndZeroedOutputs) {
  REQUIRE_GPU(gpu);
  auto compiled = compileProgram(*gpu.nvrtc, testing::handProgram(), gpu.runner->arch());
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  GpuRunOptions o;
  o.warmup = 2;
  o.repeat = 5;  // the sum output accumulates with atomics: wrong unless zeroed before every run
  auto run = gpu.runner->run(testing::handGraph(), testing::handProgram(), *compiled, handInputs(), o);
  ASSERT_TRUE(run.ok()) << run.errorText();
  EXPECT_EQ(run->latencyUs.size(), 5u);
  for (double us : run->latencyUs) EXPECT_GT(us, 0.0);
  ASSERT_EQ(run->outputs.size(), 2u);
  const auto want = testing::handExpectedZ();
  const float* z = run->outputs[0].data<float>();
  double sum = 0;
  for (int i = 0; i < testing::kN; ++i) {
    EXPECT_NEAR(z[i], want[static_cast<size_t>(i)], 1e-4 * (1 + std::abs(want[static_cast<size_t>(i)]))) << i;
    sum += want[static_cast<size_t>(i)];
  }
  EXPECT_NEAR(run->outputs[1].data<float>()[0], sum, 1e-3 * (1 + std::abs(sum)));
  ASSERT_EQ(run->blocksPerSM.size(), 2u);
  EXPECT_GE(run->blocksPerSM[0], 1);
  EXPECT_EQ(run->registers[0], compiled->kernels.at("hand_program0").registers)
      << "the driver and ptxas agree on registers";
  EXPECT_EQ(run->timing.size(), 15u);
}

TEST(GpuRun, TimingsDecodeIntoAConsistentTrace) {
  REQUIRE_GPU(gpu);
  const auto program = testing::handProgram();
  auto compiled = compileProgram(*gpu.nvrtc, program, gpu.runner->arch());
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  auto run = gpu.runner->run(testing::handGraph(), program, *compiled, handInputs(), {});
  ASSERT_TRUE(run.ok()) << run.errorText();
  auto t = decodeTiming(testing::handPlan(), program, run->timing, {gpu.runner->deviceName(), gpu.runner->sms()});
  ASSERT_TRUE(t.ok()) << t.errorText();
  ASSERT_EQ(t->tasks.size(), 5u);
  EXPECT_EQ(t->metrics.at("unrecorded_rtasks"), 0.0);
  for (const auto& e : t->tasks) {
    EXPECT_GE(e.startUs, 0.0);
    EXPECT_LE(e.startUs, e.endUs);
    EXPECT_GE(e.sm, 0);
    EXPECT_LT(e.sm, gpu.runner->sms());
  }
  // op 1's rTasks read both halves of y: each starts after both op-0 rTasks ended.
  double yDone = 0;
  for (const auto& e : t->tasks)
    if (e.task.op == 0) yDone = std::max(yDone, e.endUs);
  for (const auto& e : t->tasks) {
    if (e.task.op >= 1) {
      EXPECT_GE(e.startUs, yDone) << "op " << e.task.op << " rTask " << e.task.rtask;
    }
  }
  EXPECT_GT(t->smEfficiency, 0.0);
  EXPECT_LE(t->smEfficiency, 1.0);
}

TEST(GpuRun, TheDriverRefusesAGridThatCannotBeCoResident) {
  REQUIRE_GPU(gpu);
  codegen::GeneratedProgram p = testing::handProgram();
  // 1024-thread blocks: at most 2 per SM on any current GPU.
  p.launches[1].blockThreads = 1024;
  p.launches[1].gridBlocks = 3 * gpu.runner->sms();
  auto compiled = compileProgram(*gpu.nvrtc, p, gpu.runner->arch());
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  auto run = gpu.runner->run(testing::handGraph(), p, *compiled, handInputs(), {});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.errorText().find("program 1 (kernel hand_program1)"), std::string::npos) << run.errorText();
  EXPECT_NE(run.errorText().find("could deadlock"), std::string::npos) << run.errorText();
  EXPECT_FALSE(gpu.runner->wedged());
}

TEST(GpuRun, WatchdogNamesAProgramThatDoesNotFinish) {
  REQUIRE_GPU(gpu);
  // Spins for 2 s of GPU time: past a 0.3 s watchdog, yet it ends on its
  // own, so later tests find the GPU free.
  codegen::GeneratedProgram p;
  p.source = R"(
extern "C" __global__ void spin(float* const* buffers, unsigned long long* steps,
                                unsigned long long epoch, unsigned long long* timing) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < 2000000000ull);
})";
  codegen::KernelLaunch l;
  l.kernel = "spin";
  l.program = 4;
  l.gridBlocks = 1;
  l.blockThreads = 32;
  p.launches = {l};
  ir::Graph empty;
  auto compiled = compileProgram(*gpu.nvrtc, p, gpu.runner->arch());
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  GpuRunOptions o;
  o.warmup = 0;
  o.watchdogSeconds = 0.3;
  auto run = gpu.runner->run(empty, p, *compiled, {}, o);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.errorText().find("program 4 did not finish in 0.3 s (barrier deadlock?)"), std::string::npos)
      << run.errorText();
  EXPECT_TRUE(gpu.runner->wedged());
  auto again = gpu.runner->run(empty, p, *compiled, {}, o);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.errorText().find("still busy"), std::string::npos) << again.errorText();
}

// The whole path on generated code: codegen, NVRTC, resource check, run,
// outputs against the reference executor, measured trace.
class GpuSample : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GpuSample, MatchesTheReferenceAndRecordsEveryRTask) {
  const auto& [sample, policy] = GetParam();
  if (!probeCuda().canRun()) GTEST_SKIP() << "skipped: no GPU (" << probeCuda().message << ")";
  const ir::Graph graph = testing::optimizedSampleGraph(sample);
  schedule::Plan plan = testing::planSample(graph, policy);
  std::vector<ir::Tensor> inputs;
  for (ir::ValueId v : graph.inputs()) {
    ir::Tensor t(ir::DType::Float32, graph.value(v).type.shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    inputs.push_back(std::move(t));
  }
  auto want = exec::runReference(graph, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  GpuExecutionOptions o;
  o.run.repeat = 3;
  o.measureTrace = true;
  auto got = executeOnGpu(plan, graph, inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_EQ(got->run.latencyUs.size(), 3u);
  ASSERT_EQ(got->run.outputs.size(), want->size());
  for (size_t k = 0; k < want->size(); ++k) {
    const ir::Tensor& a = got->run.outputs[k];
    const ir::Tensor& b = (*want)[k];
    ASSERT_EQ(a.numel(), b.numel());
    double diff = 0, scale = 0;
    for (int64_t i = 0; i < b.numel(); ++i) {
      diff = std::max(diff, std::abs(a.getDouble(i) - b.getDouble(i)));
      scale = std::max(scale, std::abs(b.getDouble(i)));
    }
    EXPECT_LE(diff, 1e-3 * std::max(scale, 1e-6)) << "output " << k;
  }
  ASSERT_TRUE(got->trace.has_value());
  EXPECT_EQ(got->trace->tasks.size(), plan.numRTasks());
  EXPECT_EQ(got->trace->metrics.at("unrecorded_rtasks"), 0.0);
  EXPECT_EQ(got->trace->programs.size(), plan.programs.size());
}

INSTANTIATE_TEST_SUITE_P(Runtime, GpuSample,
                         ::testing::Combine(::testing::Values("sample_cnn", "inception_block", "nasbench_cells"),
                                            ::testing::Values("sequential", "wavefront", "greedy", "dynamic")),
                         rammer::testing::ParamName());

}  // namespace
}  // namespace rammer::runtime

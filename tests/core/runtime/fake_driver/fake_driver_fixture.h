#pragma once
// What the stand-in driver's tests share (fake_driver_test.cpp,
// fake_driver_graph_test.cpp): host "kernels" for the hand-written program
// of runtime_fixtures.h that check the barrier protocol as they run, and a
// fixture that loads the stand-in (fake_cuda.h) and runs that program.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/runtime/cuda_driver.h"
#include "core/runtime/cuda_runner.h"
#include "core/runtime/gpu_execution.h"
#include "core/runtime/shared_library.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/runtime/fake_driver/fake_cuda.h"
#include "tests/core/runtime/runtime_fixtures.h"

namespace rammer::runtime::fake {

// What the host kernels saw, checked by the tests.
struct Seen {
  std::vector<unsigned long long> epochs;  // per hand_program0 launch
  int staleViolations = 0;                 // a step already at this run's value before the run wrote it
  int waitViolations = 0;                  // a barrier whose step had not arrived (a real GPU would hang)
  int timedLaunches = 0;
  bool viewAliased = true;
};
inline Seen seen;

template <class T>
T arg(void** params, int i) {
  return reinterpret_cast<T>(*static_cast<unsigned long long*>(params[i]));
}

// hand_program0 of runtime_fixtures.h, one vEU after the other.
inline void hostProgram0(int grid, int block, void** params) {
  auto buffers = arg<float* const*>(params, 0);
  auto steps = arg<unsigned long long*>(params, 1);
  const unsigned long long epoch = *static_cast<unsigned long long*>(params[2]);
  auto timing = arg<unsigned long long*>(params, 3);
  const unsigned long long tag = epoch << 32;
  seen.epochs.push_back(epoch);
  seen.timedLaunches += timing != nullptr;
  seen.viewAliased = seen.viewAliased && buffers[5] == buffers[2];
  const float *x = buffers[0], *w = buffers[1], *yv = buffers[5];
  float *y = buffers[2], *z = buffers[3];
  for (int veu = 0; veu < grid; ++veu) {
    if (steps[veu] >= (tag | 1)) ++seen.staleViolations;
    for (int t = 0; t < block; ++t) y[veu * 128 + t] = x[veu * 128 + t] * w[veu * 128 + t];
    steps[veu] = tag | 1;
    if (timing) {
      unsigned long long* e = timing + 3 * (veu == 0 ? 0 : 1);
      e[0] = 1000 + 10 * static_cast<unsigned long long>(veu), e[1] = 2000, e[2] = static_cast<unsigned long long>(veu);
    }
  }
  for (int veu = 0; veu < grid; ++veu) {
    if (steps[1 - veu] < (tag | 1)) ++seen.waitViolations;
    for (int t = 0; t < block; ++t) {
      const int j = (1 - veu) * 128 + t;
      z[j] = yv[j] + yv[255 - j];
    }
    steps[veu] = tag | 3;
    if (timing) {
      unsigned long long* e = timing + 3 * (veu == 0 ? 3 : 2);
      e[0] = 3000, e[1] = 4000, e[2] = static_cast<unsigned long long>(veu);
    }
  }
}

inline void hostProgram1(int, int block, void** params) {
  auto buffers = arg<float* const*>(params, 0);
  auto timing = arg<unsigned long long*>(params, 3);
  for (int t = 0; t < block; ++t) buffers[4][0] += buffers[3][t];
  if (timing) timing[12] = 5000, timing[13] = 6000, timing[14] = 1;
}

inline void doNothing(int, int, void**) {}

#ifdef RAMMER_FAKE_CUDA
// The hooks of a loaded stand-in library (each library keeps its own state).
inline const FakeCudaHooks* hooksOf(const SharedLibrary& lib) {
  auto hooksFn = reinterpret_cast<const FakeCudaHooks* (*)()>(lib.find("fake_cuda_hooks"));
  return hooksFn ? hooksFn() : nullptr;
}

class FakeDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    seen = Seen{};
    auto lib = SharedLibrary::open({RAMMER_FAKE_CUDA});
    ASSERT_TRUE(lib.ok()) << lib.errorText();
    lib_ = *lib;
    hooks_ = hooksOf(*lib_);
    ASSERT_NE(hooks_, nullptr);
    hooks_->reset(1, 4, 8);
    hooks_->registerKernel("hand_program0", hostProgram0, 0);
    hooks_->registerKernel("hand_program1", hostProgram1, 0);
    auto driver = CudaDriver::load(RAMMER_FAKE_CUDA);
    ASSERT_TRUE(driver.ok()) << driver.errorText();
    driver_ = *driver;
    compiled_.arch = "sm_90";
    compiled_.cubin = {'c', 'u', 'b', 'i', 'n'};
  }
  std::unique_ptr<CudaRunner> openRunner() {
    auto r = CudaRunner::open(driver_);
    EXPECT_TRUE(r.ok()) << r.errorText();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  // The watchdog tests: program 1's kernel never finishes, and the runner gives up after 0.2 s.
  std::unique_ptr<CudaRunner> openRunnerWhereProgram1Hangs() {
    hooks_->registerKernel("hand_program1", hostProgram1, /*hangs=*/1);
    return openRunner();
  }
  static GpuRunOptions watchdogAfter200ms() {
    GpuRunOptions o;
    o.watchdogSeconds = 0.2;
    return o;
  }
  ir::Result<GpuRun> run(CudaRunner& runner, const codegen::GeneratedProgram& p, GpuRunOptions o = {}) {
    return runner.run(testing::handGraph(), p, compiled_,
                      {ir::Tensor::fromVector<float>({testing::kN}, testing::handInput())}, o);
  }

  // After a hung run: the runner is wedged and refuses the next one.
  void expectWedged(CudaRunner& runner, const GpuRunOptions& o) {
    EXPECT_TRUE(runner.wedged());
    auto again = run(runner, testing::handProgram(), o);
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.errorText().find("still busy"), std::string::npos) << again.errorText();
  }

  // sample_cnn planned by `policy`, through the whole GPU path (generated
  // code, NVRTC, the resource check, a measured trace) on an H100-sized
  // stand-in whose kernels do nothing; `graph` and `plan` are what ran.
  ir::Result<GpuExecution> executeSample(const std::string& policy, const GpuRunOptions& run, ir::Graph& graph,
                                         schedule::Plan& plan) {
    hooks_->reset(1, 132, 32);  // the plan is for the H100 preset
    hooks_->registerKernel("*", doNothing, 0);
    graph = testing::optimizedSampleGraph("sample_cnn");
    plan = testing::planSample(graph, policy);
    std::vector<ir::Tensor> inputs;
    for (ir::ValueId v : graph.inputs()) inputs.emplace_back(ir::DType::Float32, graph.value(v).type.shape);
    GpuExecutionOptions o;
    o.libraries.driverLibrary = RAMMER_FAKE_CUDA;
    o.run = run;
    o.measureTrace = true;
    return executeOnGpu(plan, graph, inputs, o);
  }

  std::shared_ptr<SharedLibrary> lib_;
  const FakeCudaHooks* hooks_ = nullptr;
  std::shared_ptr<const CudaDriver> driver_;
  CompiledProgram compiled_;
};
#endif

}  // namespace rammer::runtime::fake

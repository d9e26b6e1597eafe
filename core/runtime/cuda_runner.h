#pragma once
// Runs a compiled GeneratedProgram on a GPU through the driver API: loads
// the cubin, checks with the driver that every persistent launch's vEUs can
// be co-resident (the final word on occupancy), allocates the buffers, uploads
// weights and inputs, runs the launches in order (warm-up runs first), and
// copies the outputs and the timing words back. An instrumented program
// (numTimedEvents > 0) gets one extra run after the timed ones that records
// rTask timings, so recording never skews the latencies.
//
// A watchdog polls each launch's completion; a run that has not finished
// after `watchdogSeconds` is an error naming the program. The kernel cannot
// be stopped from the host, so the runner is then "wedged": it keeps its
// memory and context (freeing would wait on the kernel) and refuses more work.
//
// LaunchMode::Graph captures one run's memsets and launches into a CUDA
// graph once and replays it for the warm-up and timed runs (events around
// each replay, so the watchdog names the graph, not a program). The
// captured launches keep the epoch they were captured with, so the graph
// begins by zeroing the step counters: every replay starts from zero. The
// recording run stays a stream launch, with the next epoch.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/runtime/cuda_driver.h"
#include "core/runtime/launch_mode.h"
#include "core/runtime/program_compiler.h"

namespace rammer::runtime {

struct GpuRunOptions {
  int warmup = 1;   // runs before the timed ones (module load, caches, clocks)
  int repeat = 1;   // timed runs
  double watchdogSeconds = 10;
  LaunchMode launch = LaunchMode::Stream;
};

struct GpuRun {
  std::vector<ir::Tensor> outputs;  // per graph output, from the last run
  std::vector<double> latencyUs;    // per timed run, CUDA events around all launches
  std::vector<uint64_t> timing;     // the recording run's words; empty when not instrumented
  std::vector<int> blocksPerSM;     // per launch, from cuOccupancyMaxActiveBlocksPerMultiprocessor
  std::vector<int> registers;       // per launch, from cuFuncGetAttribute
  LaunchMode launch = LaunchMode::Stream;  // how the warm-up and timed runs were launched
};

class CudaRunner {
 public:
  static ir::Result<std::unique_ptr<CudaRunner>> open(std::shared_ptr<const CudaDriver> driver, int ordinal = 0);
  ~CudaRunner();
  CudaRunner(const CudaRunner&) = delete;
  CudaRunner& operator=(const CudaRunner&) = delete;

  const std::string& deviceName() const { return name_; }
  int sms() const { return sms_; }
  std::string arch() const { return "sm_" + std::to_string(major_) + std::to_string(minor_); }
  bool wedged() const { return wedged_; }

  // `inputs` bind, in order, to graph.inputs(); weights come from the
  // graph's constants. `graph` is the one the program was generated from.
  ir::Result<GpuRun> run(const ir::Graph& graph, const codegen::GeneratedProgram& program,
                         const CompiledProgram& compiled, const std::vector<ir::Tensor>& inputs,
                         const GpuRunOptions& options);

 private:
  CudaRunner() = default;
  std::shared_ptr<const CudaDriver> driver_;
  cu::Device device_ = 0;
  cu::Context context_ = nullptr;
  std::string name_;
  int sms_ = 0, major_ = 0, minor_ = 0;
  bool wedged_ = false;
};

}  // namespace rammer::runtime

#pragma once
// The runs of one program on the GPU, once the runner has loaded it and
// filled its buffers (cuda_runner.h): warm-up runs, timed runs between
// CUDA events, and the instrumented program's recording run, issued on
// the stream launch after launch or, with LaunchMode::Graph, as replays
// of one run captured into a CUDA graph (docs/CODEGEN.md, "Launch modes").
// A watchdog polls the events: a run that outlives it is an error naming
// the program (or the graph) that hangs.
#include <cstddef>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/codegen/zero_ranges.h"
#include "core/ir/diagnostic.h"
#include "core/runtime/cuda_driver.h"
#include "core/runtime/cuda_graph.h"
#include "core/runtime/cuda_runner.h"

namespace rammer::runtime {

// The device addresses the launches take: per buffer, the split-K arena,
// the buffer table, the step counters and the timing words.
struct RunBuffers {
  std::vector<cu::DevicePtr> address;
  codegen::ZeroLayout zero;
  cu::DevicePtr arena = 0, table = 0, steps = 0, timing = 0;  // timing 0: not instrumented
  size_t stepWords = 0, timingWords = 0;
};

// What the runs use; the runner owns all of it.
struct RunDevice {
  const CudaDriver& driver;
  const codegen::GeneratedProgram& program;
  const std::vector<cu::Function>& functions;  // per launch
  const RunBuffers& buffers;
  cu::Stream stream = nullptr;
  // [0] before a run, [i + 1] after launch i; a replay uses [0] and [1]:
  // max(launches + 1, 2) of them.
  const std::vector<cu::Event>& events;
};

// Zeroes the step counters on the stream (the 8-byte words as 32-bit ones).
ir::Result<bool> clearSteps(const RunDevice& device);

// Every run `options` asks for, launched as options.launch says; latencies
// (and the launch mode) go to `out`. The graph captured in graph mode is
// left in `graph` for the caller to destroy; a hang sets `wedged`.
ir::Result<bool> runAll(const RunDevice& device, const GpuRunOptions& options, CapturedGraph& graph, bool& wedged,
                        GpuRun& out);

}  // namespace rammer::runtime

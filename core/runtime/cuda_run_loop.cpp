#include "core/runtime/cuda_run_loop.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <thread>

namespace rammer::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// One run's work on the stream: per launch, its split-K clears and the
// kernel with the ABI's arguments (docs/CODEGEN.md, "Kernel ABI").
// `after`: events recorded after each launch (the watchdog's), or none.
ir::Result<bool> enqueueRun(const RunDevice& g, unsigned long long epoch, bool recording,
                            const std::vector<cu::Event>* after) {
  const CudaDriver& d = g.driver;
  const RunBuffers& b = g.buffers;
  for (size_t i = 0; i < g.program.launches.size(); ++i) {
    const codegen::KernelLaunch& l = g.program.launches[i];
    for (const codegen::WordRange& c : b.zero.clears[i]) {
      const cu::DevicePtr at = b.arena + static_cast<cu::DevicePtr>(c.offset) * sizeof(float);
      if (auto ok = d.check(d.cuMemsetD32Async(at, 0, static_cast<size_t>(c.words), g.stream),
                            fmt::format("zeroing the split-K outputs of launch {}", i));
          !ok)
        return ok;
    }
    cu::DevicePtr bufferArg = b.table;
    cu::DevicePtr stepsArg = b.steps;
    cu::DevicePtr timingArg = recording ? b.timing : 0;  // the kernel records only when non-null
    int launchIndex = static_cast<int>(i);               // picks the operator in shared RammerBase kernels
    std::array<void*, 5> args = {&bufferArg, &stepsArg, &epoch, &timingArg, &launchIndex};
    if (auto ok =
            d.check(d.cuLaunchKernel(g.functions[i], static_cast<unsigned>(l.gridBlocks), 1, 1,
                                     static_cast<unsigned>(l.blockThreads), 1, 1,
                                     static_cast<unsigned>(l.dynamicSharedBytes), g.stream, args.data(), nullptr),
                    fmt::format("launching program {} ({} x {} threads)", l.program, l.gridBlocks, l.blockThreads));
        !ok)
      return ok;
    if (after)
      if (auto ok = d.check(d.cuEventRecord((*after)[i + 1], g.stream), "cuEventRecord"); !ok) return ok;
  }
  return true;
}

// Polls `e` until it completes (kSuccess) or fails (the error); past the
// deadline, kErrorNotReady: what it follows counts as hung.
cu::Result waitFor(const CudaDriver& d, cu::Event e, Clock::time_point deadline) {
  for (;;) {
    const cu::Result r = d.cuEventQuery(e);
    if (r != cu::kErrorNotReady || Clock::now() > deadline) return r;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// What a launch that never ends waits on: a dynamic program on its ready
// queue, any other on a barrier.
const char* hangCause(const codegen::KernelLaunch& l) {
  return l.table.queue >= 0 ? "a ready-queue gate that never opens" : "barrier deadlock";
}

// "the CUDA graph of 2 launches (programs 0-1)": what a replay's errors name.
std::string graphName(const std::vector<codegen::KernelLaunch>& ls) {
  if (ls.empty()) return "the CUDA graph of no launches";
  return fmt::format("the CUDA graph of {} launches (programs {}-{})", ls.size(), ls.front().program,
                     ls.back().program);
}

// The runs of one runAll().
struct Runs {
  const RunDevice& g;
  const GpuRunOptions& options;
  bool& wedged;
  GpuRun& out;

  Clock::time_point deadline() const {
    return Clock::now() +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.watchdogSeconds));
  }

  ir::Result<bool> recordLatency(cu::Event from, cu::Event to) {
    float ms = 0;
    if (auto ok = g.driver.check(g.driver.cuEventElapsedTime(&ms, from, to), "cuEventElapsedTime"); !ok) return ok;
    out.latencyUs.push_back(static_cast<double>(ms) * 1000.0);
    return true;
  }

  // One run launched on the stream; the watchdog names the program that hangs.
  ir::Result<bool> streamRun(unsigned long long epoch, bool recording, bool timed) {
    const CudaDriver& d = g.driver;
    const auto& ls = g.program.launches;
    if (recording)
      if (auto ok = d.check(d.cuMemsetD32Async(g.buffers.timing, 0, g.buffers.timingWords * 2, g.stream),
                            "clearing the timing buffer");
          !ok)
        return ok;
    if (auto ok = d.check(d.cuEventRecord(g.events[0], g.stream), "cuEventRecord"); !ok) return ok;
    if (auto ok = enqueueRun(g, epoch, recording, &g.events); !ok) return ok;
    // The host cannot interrupt a kernel that waits on a barrier forever,
    // but it can stop waiting for it and say which program hangs.
    const Clock::time_point until = deadline();
    for (size_t i = 0; i < ls.size(); ++i) {
      const cu::Result r = waitFor(d, g.events[i + 1], until);
      if (r == cu::kErrorNotReady) {
        wedged = true;
        return ir::makeError(fmt::format("program {} did not finish in {:g} s ({}?)", ls[i].program,
                                         options.watchdogSeconds, hangCause(ls[i])));
      }
      if (auto ok = d.check(r, fmt::format("running program {} (kernel {})", ls[i].program, ls[i].kernel)); !ok)
        return ok;
    }
    if (timed && !ls.empty()) return recordLatency(g.events[0], g.events[ls.size()]);
    return true;
  }

  // Warm-up runs, timed runs, then (instrumented programs only) one more
  // run that records rTask timings, so recording never skews the latency.
  // Each run has an epoch of its own, so the steps need no reset.
  ir::Result<bool> streamRuns() {
    const int warmup = std::max(options.warmup, 0);
    const bool instrumented = g.buffers.timing != 0;
    const int runs = warmup + options.repeat + (instrumented ? 1 : 0);
    for (int run = 0; run < runs; ++run) {
      const bool recording = instrumented && run == runs - 1;
      if (auto ok = streamRun(static_cast<unsigned long long>(run) + 1, recording, run >= warmup && !recording); !ok)
        return ok;
    }
    return true;
  }

  // One replay between two events. Which of its launches hangs no event
  // can tell, so a hang names the graph.
  ir::Result<bool> replay(cu::GraphExec exec, bool timed) {
    const CudaDriver& d = g.driver;
    const auto& ls = g.program.launches;
    const std::string graph = graphName(ls);
    if (auto ok = d.check(d.cuEventRecord(g.events[0], g.stream), "cuEventRecord"); !ok) return ok;
    if (auto ok = d.check(d.graphs.cuGraphLaunch(exec, g.stream), "cuGraphLaunch(" + graph + ")"); !ok) return ok;
    if (auto ok = d.check(d.cuEventRecord(g.events[1], g.stream), "cuEventRecord"); !ok) return ok;
    const cu::Result r = waitFor(d, g.events[1], deadline());
    if (r == cu::kErrorNotReady) {
      wedged = true;
      const bool queues = std::any_of(ls.begin(), ls.end(), [](const auto& l) { return l.table.queue >= 0; });
      return ir::makeError(fmt::format(
          "{} did not finish in {:g} s ({}?); launched as a stream, the run would name the program that hangs", graph,
          options.watchdogSeconds,
          queues ? "a barrier deadlock or a ready-queue gate that never opens" : "barrier deadlock"));
    }
    if (auto ok = d.check(r, "running " + graph); !ok) return ok;
    if (timed) return recordLatency(g.events[0], g.events[1]);
    return true;
  }

  // The warm-up and timed runs as replays of one captured run, then the
  // recording run (instrumented programs) on the stream with the next epoch.
  ir::Result<bool> graphRuns(CapturedGraph& graph) {
    constexpr unsigned long long kGraphEpoch = 1;
    auto captured = captureGraph(g.driver, g.stream, [this]() -> ir::Result<bool> {
      // Parameters are captured by value: every replay runs with
      // kGraphEpoch. Without the reset a barrier would take the previous
      // replay's steps for this one's and run ahead of its producers.
      if (auto ok = clearSteps(g); !ok) return ok;
      return enqueueRun(g, kGraphEpoch, false, nullptr);
    });
    if (!captured) return captured.errors();
    graph = *captured;
    const int warmup = std::max(options.warmup, 0);
    for (int run = 0; run < warmup + options.repeat; ++run)
      if (auto ok = replay(graph.exec, run >= warmup); !ok) return ok;
    if (g.buffers.timing) return streamRun(kGraphEpoch + 1, true, false);
    return true;
  }
};

}  // namespace

ir::Result<bool> clearSteps(const RunDevice& g) {
  return g.driver.check(g.driver.cuMemsetD32Async(g.buffers.steps, 0, std::max<size_t>(g.buffers.stepWords, 1) * 2, g.stream),
                   "clearing the step counters");
}

ir::Result<bool> runAll(const RunDevice& device, const GpuRunOptions& options, CapturedGraph& graph, bool& wedged,
                        GpuRun& out) {
  out.launch = options.launch;
  Runs runs{device, options, wedged, out};
  return options.launch == LaunchMode::Graph ? runs.graphRuns(graph) : runs.streamRuns();
}

}  // namespace rammer::runtime

#pragma once
// What code generation hands to the runtime and the exporter: one source
// file holding a __global__ kernel per launch, the buffers those kernels
// index, and how to launch them. The runtime (core/runtime) compiles the
// source with NVRTC, allocates `buffers`, fills weights and inputs, runs
// `launches` in order and decodes the timing buffer; the exporter writes the
// same things as a standalone project.
//
// Kernel ABI (every generated __global__, CUDA and HIP alike):
//   extern "C" __global__ void NAME(float* const* buffers,
//                                   unsigned long long* steps,
//                                   unsigned long long epoch,
//                                   unsigned long long* timing)
//   buffers  device pointers, indexed like GeneratedProgram::buffers
//   steps    one counter per vEU of the launch, at stepOffset; never reset:
//            a run passes a new epoch (1, 2, ...) so old values read as stale
//   timing   nullptr, or when instrumented 3 words per executed rTask at
//            timingOffset + its event index: start, end (%globaltimer ns), smid
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/schedule/rprogram.h"

namespace rammer::codegen {

enum class Target { Cuda, Hip };

struct CodegenOptions {
  Target target = Target::Cuda;
  bool instrument = false;  // record start/end/smid per rTask
};

struct BufferInfo {
  enum class Kind { Input, Output, Weight, Intermediate };
  std::string name;             // the graph value's name
  ir::ValueId value = ir::kNone;
  Kind kind = Kind::Intermediate;
  int64_t numel = 0;            // float32 elements
  // Views share storage: the buffer index whose memory this one is (itself when not a view).
  int32_t storage = -1;
};

// Where each instrumented rTask's timing words go, to decode them.
struct TimedTask {
  schedule::TaskRef task;
  int32_t veu = -1;
  int32_t order = -1;
};

struct KernelLaunch {
  std::string kernel;  // __global__ name in `source`
  int32_t program = -1;  // Plan::programs index
  int gridBlocks = 0;    // vEUs
  int blockThreads = 0;
  int64_t dynamicSharedBytes = 0;
  int64_t stepOffset = 0;    // into the steps array
  int64_t timingOffset = 0;  // into the timing array, in events (3 words each)
  std::vector<int32_t> zeroBuffers;  // set to 0 before the launch (split-K outputs)
  std::vector<TimedTask> timedTasks;  // event index i -> rTask (instrumented runs)
};

struct GeneratedProgram {
  Target target = Target::Cuda;
  std::string source;  // the whole translation unit
  std::vector<BufferInfo> buffers;
  std::vector<KernelLaunch> launches;  // in run order
  int64_t numSteps = 0;        // size of the steps array
  int64_t numTimedEvents = 0;  // size of the timing array / 3
};

}  // namespace rammer::codegen

#pragma once
// What code generation hands to the runtime and the exporter: one source
// file holding the __global__ kernels of the launches, the buffers those
// kernels index (with the instruction-table words), and how to launch them. The runtime (core/runtime) compiles the
// source with NVRTC, allocates `buffers`, fills weights and inputs, runs
// `launches` in order and decodes the timing buffer; the exporter writes the
// same things as a standalone project. docs/CODEGEN.md explains the code.
//
// Kernel ABI (every generated __global__, CUDA and HIP alike):
//   extern "C" __global__ void NAME(float* const* buffers,
//                                   unsigned long long* steps,
//                                   unsigned long long epoch,
//                                   unsigned long long* timing,
//                                   int launch)
//   The first four arguments are the SAME for every launch of a run: the
//   kernels add their own stepOffset / timingOffset (baked into the source).
//   buffers  device pointers, indexed like GeneratedProgram::buffers; a view
//            (storage != its own index) holds the pointer of its storage
//            plus its storageOffset elements
//   steps    base of numSteps counters, zeroed once when allocated and
//            never reset: a run passes a new epoch (1, 2, ...) so values of
//            earlier runs read as stale
//   epoch    1, 2, ... (< 2^32), the same for every launch of one run
//   timing   nullptr, or (when instrumented) base of numTimedEvents x 3
//            words; rTask event e of a launch writes words
//            3 * (timingOffset + e) + {0: start, 1: end, 2: smid}; start/end
//            are %globaltimer ns on CUDA, s_memrealtime ticks on HIP; a
//            dynamic program's vEU is not in its table, so word 2 carries
//            it in its high 32 bits
//   launch   the launch's index in GeneratedProgram::launches. Several
//            launches can share one kernel (RammerBase: one kernel per
//            distinct rKernel, one launch per operator); the index picks the
//            operator. Persistent kernels ignore it.
// The instruction tables (which rTasks each vEU runs, barriers, argument
// lists) are data, not code: buffers[tableBuffer] must hold tableWords
// (int32 words, 4 bytes each like a float) before the first launch; kernels
// trap when its first word is not kTableMagic. So the source, and its
// compile time, grow with the number of distinct rKernels, not rTasks.
// Dynamic shared memory: dynamicSharedBytes; above 48 KiB the runtime must
// raise the kernel's max dynamic shared memory attribute first.
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/schedule/rprogram.h"

namespace rammer::codegen {

// Host: the same kernel text on the CPU (core/codegen/host/rammer_host.h).
enum class Target { Cuda, Hip, Host };

inline constexpr int32_t kTableMagic = 0x524d5442;  // "RMTB"

// `source` holds the target's prelude between these two lines; what follows
// is the kernel text, the same for every target but for HIP's
// __launch_bounds__ (code_generator_test compares the host's with CUDA's).
inline constexpr const char* kPreludeBegin = "// ---- prelude (target-specific) ----\n";
inline constexpr const char* kPreludeEnd = "// ---- end of prelude ----\n";

struct CodegenOptions {
  Target target = Target::Cuda;
  bool instrument = false;  // record start/end/smid per rTask
  // Sequential (RammerBase) plans: one ordinary kernel per operator (grid =
  // rTasks, block = its threads). false: persistent kernels for every plan.
  bool ordinaryKernelsForSequential = true;
  // A persistent kernel's __launch_bounds__ ask for the plan's vEUs per SM
  // even where its vEUs fill fewer (KernelLaunch::boundsBlocksPerSM): holds
  // each rKernel to the register budget of its shape (the spill tests).
  bool boundsAtPlanShape = false;
};

struct BufferInfo {
  // Table: the instruction-table words (GeneratedProgram::tableWords), not a graph value.
  enum class Kind { Input, Output, Weight, Intermediate, Table };
  std::string name;             // the graph value's name
  ir::ValueId value = ir::kNone;
  Kind kind = Kind::Intermediate;
  int64_t numel = 0;            // float32 elements (int32 words for the Table)
  // Views share storage: the buffer index whose memory this one is (itself when not a view).
  int32_t storage = -1;
  // Where in the storage this buffer starts, in elements: a Concat's input
  // its producer writes in place (kernels/in_place.h); 0 otherwise.
  int64_t storageOffset = 0;
  int32_t inputIndex = -1;   // position in graph.inputs(), -1 if none
  int32_t outputIndex = -1;  // position in graph.outputs(), -1 if none (an input or weight can be one too)
};

// Where each instrumented rTask's timing words go, to decode them.
struct TimedTask {
  schedule::RTask task;
  int32_t veu = -1;
  int32_t order = -1;
};

struct KernelLaunch {
  std::string kernel;  // __global__ name in `source` (launches may share one)
  int32_t program = -1;  // Plan::programs index
  int gridBlocks = 0;    // vEUs (persistent) or rTasks (ordinary)
  int blockThreads = 0;
  int64_t dynamicSharedBytes = 0;
  // Of it, the resident region at its start (schedule::VDevice::
  // residentBytes): the kernel clears its tag when it starts and hands the
  // rKernels the shared memory after it.
  int64_t residentBytes = 0;
  int64_t stepOffset = 0;    // into the steps array
  int64_t timingOffset = 0;  // into the timing array, in events (3 words each)
  std::vector<int32_t> zeroBuffers;  // set to 0 before the launch (split-K outputs, a dynamic program's state)
  std::vector<TimedTask> timedTasks;  // event index i -> rTask (instrumented runs)
  // Persistent kernels spin on barriers: all gridBlocks must be resident at
  // once, i.e. gridBlocks <= (blocks per SM of the COMPILED kernel) x SMs;
  // otherwise refuse to launch. Ordinary kernels (RammerBase) have no such rule.
  bool persistent = true;
  int veusPerSM = 0;  // what the plan assumed
  // CUDA's __launch_bounds__ minimum blocks per SM: the plan's vEUs per SM,
  // or fewer when the program's vEUs need fewer to be co-resident (66 vEUs
  // on 132 SMs need 1 per SM). Asking for more than that caps the
  // registers for nothing, and a capped rKernel spills.
  int boundsBlocksPerSM = 0;
  // Persistent kernels: word offsets of their parts of tableWords (for
  // decoding and tests; the kernel has them baked in). -1 otherwise.
  struct TableLayout {
    int64_t streams = -1;  // per vEU: [begin, end) entry indices
    int64_t events = -1;   // per vEU: its first rTask's event index
    int64_t code = -1;     // entries, 6 words each: fn, args, first, count, stride, publish
    int64_t waits = -1;    // wait lists, 2 words per awaited vEU: vEU, order
    int64_t queue = -1;    // dynamic programs: the ready queue's table (codegen/dynamic_kernel.h)
  } table;
  int64_t argsOffset = -1;  // ordinary kernels: word offset of the operator's buffer indices
  // The non-inlined rKernel wrappers (rammer_fnN) the kernel calls: their
  // own stack and spills belong to this launch (runtime/ptxas_log.h).
  std::vector<std::string> functions;
};

struct GeneratedProgram {
  Target target = Target::Cuda;
  std::string source;  // the whole translation unit
  std::vector<BufferInfo> buffers;
  std::vector<KernelLaunch> launches;  // in run order
  int64_t numSteps = 0;        // size of the steps array
  int64_t numTimedEvents = 0;  // size of the timing array / 3
  int32_t tableBuffer = -1;          // the Kind::Table buffer
  std::vector<int32_t> tableWords;   // its contents, uploaded once before the first run
  // Size of the generated code, for reports: distinct rKernel functions and
  // instruction-table entries over all launches.
  int64_t numFunctions = 0;
  int64_t numTableEntries = 0;
  // rammer_fnN -> the plan ops whose rTasks it runs (ascending): what a
  // compiled function's spills are traced back to (pipeline/register_fit.h).
  std::vector<std::vector<int32_t>> functionOps;
};

}  // namespace rammer::codegen

#pragma once
// An rKernel: one implementation of one rOperator, cut into rTasks that run
// independently (any order, any vEU). The kernel's math is written once, in
// its CUDA __device__ function (which the host target runs on the CPU); the
// CPU emulator runs rTask k by copying the elements it declares it writes
// (`written`) from the operator's reference result (written_runs.h), so it
// checks the schedule with the numbers of the rTasks that ran before it.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/kernels/written_runs.h"

namespace rammer::kernels {

// Thread shape of one rTask as the kernel was written (a legacy block
// shape). The generated code runs it on a 1-D block and remaps:
// x = tid % bx, y = (tid / bx) % by, z = tid / (bx * by).
struct Dim3 {
  int x = 1, y = 1, z = 1;
  int count() const { return x * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

// The operator's tensors during one execution. An rTask reads any input and
// writes only its own tile of the outputs.
// Every pointer addresses 32-bit words (core/ir/words.h): float32 values,
// or the int32 values of integer and bool tensors.
struct TaskBuffers {
  std::vector<const float*> inputs;  // per input slot; nullptr when omitted or baked
  std::vector<float*> outputs;       // per output slot; nullptr when omitted
};

// Computes one rTask. `scratch` has sharedBytes bytes (the vEU's shared
// memory), reused by every rTask that runs on the vEU.
using CpuTaskFn = std::function<void(int64_t rtask, const TaskBuffers& buffers, float* scratch)>;

// A range [lo, hi) of one dim of a tensor that an rTask writes or reads.
struct TileSpan {
  int dim = -1;
  int64_t lo = 0, hi = 0;
};

struct RKernel {
  std::string name;    // "gemm_64x64": unique among one operator's candidates
  std::string family;  // "gemm", "gemm_splitk", "conv_igemm", "conv_depthwise", "elementwise", "copy", ...
  std::map<std::string, int64_t> params;  // tiling and shape parameters, for display and the cost model

  int64_t numRTasks = 0;
  Dim3 block;                 // threads of one rTask
  int64_t sharedBytes = 0;    // shared memory one rTask uses
  // Shared memory an rTask keeps on its vEU after it ends (issue #45 item
  // 3): a recurrent cell's slice of its weights, loaded by the first rTask
  // of `residentValue` and this rTask index on the vEU and found there by
  // the next. It lies below the scratch of every rKernel of the program
  // (codegen: the program's resident region), so no other rTask writes it.
  // A tag in the region says which slice it holds: a vEU that runs another
  // slice in between reloads, so only the time, never the result, depends
  // on the policy keeping rTask j of a value on one vEU (resident_pins.h).
  int64_t residentBytes = 0;
  std::string residentValue;   // the constant the slice is part of
  double residentReadBytes = 0;  // whole operator: the reads an rTask that finds its slice skips; not in `bytes`
  int regsEstimate = 32;      // replaced by the compiler's count once compiled
  bool regsCompiled = false;  // regsEstimate is what ptxas gave (applyCompiledResources)
  int syncCount = 0;          // __syncthreads() per rTask (HIP early-exit rule)
  double flops = 0;           // whole operator
  double bytes = 0;           // whole operator's global-memory traffic
  // Of `bytes`, the re-reads that hit in L2: data another rTask of the
  // operator already brought on chip (a fused group's weights and halos).
  // The rest goes to DRAM.
  double l2Bytes = 0;
  // Split-K kernels accumulate with atomics into outputs that must start at zero.
  bool zeroOutputsFirst = false;
  // Its inputs live inside its output, or its outputs inside its input 0
  // (kernels/in_place.h): the buffer tables place them at their offsets
  // there, and the rKernel moves nothing.
  bool inputsInPlace = false;
  bool outputsInPlace = false;
  // With either: the element offset of each input in the output, or of
  // each output in input 0, found once where the candidate was made.
  std::vector<int64_t> placeOffsets;
  // Global memory the rKernel owns besides the node's outputs, in words: a
  // split-K kernel with an epilogue counts the chunks of each tile that
  // have arrived there, and the last one applies the epilogue. It is one
  // more pointer after the outputs (CUDA: `float* out<numOutputs>`; the CPU
  // tile: the last of TaskBuffers::outputs), zeroed with them.
  int64_t workspaceWords = 0;
  // Per input slot: a non-float32 constant there is passed as run-time
  // words (ir/words.h) like any tensor. Elsewhere (and when this is empty)
  // the rKernel bakes such constants in (shapes, indices: Slice's int64
  // ends need not fit a word) and gets a null pointer.
  std::vector<bool> constantsAsWords;
  bool readsConstantAsWords(size_t slot) const { return slot < constantsAsWords.size() && constantsAsWords[slot]; }

  // The CUDA/HIP __device__ function: `void <cudaFunction>(int rtask_id,
  // int tid, float* smem, const float* in0, ..., float* out0, ...)`, one
  // pointer per input slot then per output slot. It never reads blockIdx;
  // threads with tid >= block.count() skip the work but reach every barrier.
  std::string cudaFunction;
  std::string cudaSource;
  // core/kernels/cuda/*.cuh files the source instantiates (cuda_library.h),
  // written once into a program ahead of every rKernel function.
  std::vector<std::string> cudaLibraries;
  // Exactly one of the two: the elements each rTask writes, which the
  // emulator takes from the reference operator (every generator's
  // choice), or a CPU function for the rTask, which no generator sets
  // (tests/docs/check_cpu_tiles.py) and hand-built plans (a test's
  // operator without a reference) may.
  CpuTaskFn cpu;
  WrittenFn written;

  // Where the kernel knows them (a fused group's instances): the range of
  // output 0 that rTask k writes, and the range of input `slot` it reads.
  // With both, a consumer rTask waits only for the producer rTasks that
  // write what it reads (schedule/rtask_needs.h). Empty or nullopt: all of
  // the tensor.
  std::function<std::optional<TileSpan>(int64_t rtask)> writes;
  std::function<std::optional<TileSpan>(int64_t rtask, size_t slot)> reads;

  int threads() const { return block.count(); }
  double flopsPerRTask() const { return numRTasks ? flops / static_cast<double>(numRTasks) : 0; }
  double bytesPerRTask() const { return numRTasks ? bytes / static_cast<double>(numRTasks) : 0; }
  double dramBytes() const { return bytes - l2Bytes; }
};

}  // namespace rammer::kernels

#include "core/codegen/device_prelude.h"

#include "core/codegen/host_sources.h"

namespace rammer::codegen {

namespace {

// PTX acquire/release at GPU scope (sm_70+): a waiter that sees the step
// also sees every write the producer block made before publishing it.
constexpr const char* kCudaPrimitives = R"(#define RAMMER_TARGET_CUDA 1
// NVRTC compiles without <math.h>; nvcc has these already.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
__device__ __forceinline__ unsigned long long rammer_load_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void rammer_store_release(unsigned long long* p, unsigned long long v) {
  asm volatile("st.release.gpu.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
}
// A dynamic program's gate: the old count, acquire and release at once.
__device__ __forceinline__ unsigned long long rammer_arrive(unsigned long long* p) {
  unsigned long long old;
  asm volatile("atom.acq_rel.gpu.add.u64 %0, [%1], 1;" : "=l"(old) : "l"(p) : "memory");
  return old;
}
__device__ __forceinline__ void rammer_pause() { __nanosleep(32); }
__device__ __forceinline__ void rammer_trap() { __trap(); }
// Read where used, never hoisted: see rammer_wait.
__device__ __forceinline__ unsigned rammer_threads() {
  unsigned n;
  asm volatile("mov.u32 %0, %%ntid.x;" : "=r"(n));
  return n;
}
__device__ __forceinline__ unsigned long long rammer_opaque(unsigned long long v) {
  asm volatile("" : "+l"(v));
  return v;
}
// Nanoseconds, comparable across SMs.
__device__ __forceinline__ unsigned long long rammer_clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned long long rammer_smid() {
  unsigned int s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
)";

// HIP: clang's scoped atomics at agent (device) scope. The timer and CU id
// builtins exist only in the device pass; the host pass never runs them.
constexpr const char* kHipPrimitives = R"(#include <hip/hip_runtime.h>
#define RAMMER_TARGET_HIP 1
__device__ __forceinline__ unsigned long long rammer_load_acquire(const unsigned long long* p) {
  return __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ __forceinline__ void rammer_store_release(unsigned long long* p, unsigned long long v) {
  __hip_atomic_store(p, v, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ __forceinline__ unsigned long long rammer_arrive(unsigned long long* p) {
  return __hip_atomic_fetch_add(p, 1ull, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ __forceinline__ void rammer_pause() {
#ifdef __HIP_DEVICE_COMPILE__
  __builtin_amdgcn_s_sleep(1);
#endif
}
__device__ __forceinline__ void rammer_trap() { __builtin_trap(); }
__device__ __forceinline__ unsigned rammer_threads() { return blockDim.x; }
__device__ __forceinline__ unsigned long long rammer_opaque(unsigned long long v) { return v; }
// Ticks of the constant-rate real-time counter (100 MHz on CDNA2).
__device__ __forceinline__ unsigned long long rammer_clock() {
#ifdef __HIP_DEVICE_COMPILE__
  return __builtin_amdgcn_s_memrealtime();
#else
  return 0;
#endif
}
__device__ __forceinline__ unsigned long long rammer_smid() {
#ifdef __HIP_DEVICE_COMPILE__
  return __smid();
#else
  return 0;
#endif
}
)";

// Every target: the table check and the argument lookup.
constexpr const char* kTable = R"(
// The table buffer (GeneratedProgram::tableWords) starts with this magic
// word; a runtime that did not upload it gets a trap, not wrong results.
#define RAMMER_TABLE_MAGIC @MAGIC@
__device__ __forceinline__ const int* rammer_table(float* const* buffers, int index) {
  const int* t = reinterpret_cast<const int*>(buffers[index]);
  if (t[0] != RAMMER_TABLE_MAGIC) rammer_trap();
  return t;
}

// The table's words once rammer_table has checked them.
__device__ __forceinline__ const int* rammer_words(float* const* buffers, int index) {
  return reinterpret_cast<const int*>(buffers[index]);
}

__device__ __forceinline__ float* rammer_ptr(float* const* buffers, int index) {
  return index < 0 ? nullptr : buffers[index];
}
)";

// CUDA and HIP: the block's threads run the kernel text themselves, so an
// rTask call is just the call (the host prelude fans it out instead).
constexpr const char* kGpuProtocol = R"(
// 16-byte aligned: the GEMM mainloop reads its fragments with 16-byte loads.
extern __shared__ __attribute__((aligned(16))) float rammer_smem[];

#define RAMMER_BLOCK_THREADS(syncs, call) call

// Barrier-rTask: the block's threads poll the awaited vEUs' step counters
// in parallel until each shows this run's epoch and at least order + 1
// completed instructions; the barrier then releases the whole block.
// `waits` holds `counters` pairs {vEU, order} (instruction_table.h): thread
// tid polls pairs tid, tid + blockDim.x, ..., each found at once, so a
// barrier of up to blockDim.x counters is one round trip and no thread
// walks the list. Polled run after run, a barrier cost a round trip per
// run: on an H100, lstm_tc's barriers of 17-64 runs released their vEU
// 20-29 us after the last producer finished, those of one run 3.7 us
// (2026-11-27 lease); found by walking the runs, a thread still paid a
// table read per run before its counter.
// The epoch's tag and the block's size are made here, opaquely: hoisted
// out of the kernel's instruction loop they stay live across every rTask
// call, and ptxas takes the registers from the rKernel (a gemm_128x128 at
// 128 registers spilled 16 bytes, MainloopRegisters.*).
__device__ __forceinline__ void rammer_wait(const unsigned long long* steps, unsigned long long epoch,
                                            const int* waits, int counters, int tid) {
  const unsigned long long tag = rammer_opaque(epoch) << 32;
  for (int j = tid; j < counters; j += rammer_threads()) {
    const unsigned long long want = tag | (unsigned long long)(waits[2 * j + 1] + 1);
    while (rammer_load_acquire(steps + waits[2 * j]) < want) rammer_pause();
  }
  __threadfence();
  __syncthreads();
}

// A dynamic program's ready queue: thread 0 waits for entry `position` to
// be filled (acquire), spinning like a barrier.
__device__ __forceinline__ unsigned long long rammer_wait_entry(const unsigned long long* entry, int position) {
  (void)position;
  unsigned long long v;
  while ((v = rammer_load_acquire(entry)) == 0) rammer_pause();
  return v;
}

// After a __syncthreads(): every thread's writes precede the release.
__device__ __forceinline__ void rammer_publish(unsigned long long* step, unsigned long long value, int tid) {
  if (tid == 0) {
    __threadfence();
    rammer_store_release(step, value);
  }
}
)";

// Every target: the dispatch of a dynamic program (schedule/dynamic_program.h,
// docs/CODEGEN.md "Dynamic programs"), run by thread 0 of a vEU.
//   q   the program's queue table: q[0] operators, q[1] of them queued at
//       launch (listed from q[5]), q[2] where the operator entries start (8
//       words: fn, args, rTasks, gate, first consumer, consumers, first
//       event, 0), q[3] where the consumer lists start, q[4] claim shards
//       K; offsets from q
//   st  the program's state, zeroed before each launch: st[0] the shared
//       queue position (every operator before it has handed out all its
//       rTasks), st[1] entries pushed, st[2 + 2i] rTasks of operator i
//       claimed from shard 0, st[3 + 2i] producer rTasks of i finished,
//       from st[2 + 2n] the pushed entries (operator + 1; 0 while empty),
//       after them K - 1 claim counters per operator (shards 1..K-1)
constexpr const char* kDynamic = R"(
// The next rTask for vEU `veu`: operator and rTask index, or false when
// every rTask has been handed out. `h` is the vEU's own queue position: it
// moves past an operator only when its claims find every shard exhausted,
// and jumps to the shared position so that late vEUs skip exhausted
// operators without a claim. Shard s holds rTasks s, s + K, ...; a vEU
// claims from shard veu mod K first, then steals from the next ones.
__device__ __forceinline__ bool rammer_next(const int* q, unsigned long long* st, unsigned long long* h, int* op,
                                            int* rtask, int veu) {
  const unsigned long long n = (unsigned long long)q[0], queued = (unsigned long long)q[1];
  const unsigned long long shards = (unsigned long long)q[4], home = (unsigned long long)veu % shards;
  unsigned long long* const extra = st + 2 + 2 * n + (n - queued);  // claim shards 1..K-1
  for (;;) {
    if (*h >= n) return false;
    const int e = *h < queued ? q[5 + *h] : (int)rammer_wait_entry(st + 2 + 2 * n + (*h - queued), (int)*h) - 1;
    const unsigned long long tasks = (unsigned long long)q[q[2] + 8 * e + 2];
    for (unsigned long long k = 0; k < shards; ++k) {
      const unsigned long long s = home + k < shards ? home + k : home + k - shards;
      if (s >= tasks) continue;  // an empty shard
      unsigned long long* const claim = s == 0 ? st + 2 + 2 * e : extra + (shards - 1) * e + (s - 1);
      const unsigned long long r = atomicAdd(claim, 1ull);
      if (r < (tasks - s + shards - 1) / shards) {
        *op = e;
        *rtask = (int)(s + r * shards);
        return true;
      }
    }
    const unsigned long long shared = atomicMax(st, *h + 1);  // the position before; now at least *h + 1
    *h = shared > *h + 1 ? shared : *h + 1;
  }
}

// After operator `op`'s rTask and the block's __syncthreads(): count it at
// each consumer's gate; the rTask that opens a gate pushes the consumer.
__device__ __forceinline__ void rammer_finish(const int* q, unsigned long long* st, int op, int tid) {
  const unsigned long long n = (unsigned long long)q[0];
  const int* const e = q + q[2] + 8 * op;
  __threadfence();
  for (int k = 0; k < e[5]; ++k) {
    const int c = q[q[3] + e[4] + k];
    if (rammer_arrive(st + 3 + 2 * c) + 1 == (unsigned long long)q[q[2] + 8 * c + 3]) {
      const unsigned long long at = atomicAdd(st + 1, 1ull);
      rammer_publish(st + 2 + 2 * n + at, (unsigned long long)c + 1, tid);
    }
  }
}
)";

}  // namespace

std::string devicePrelude(Target target) {
  std::string table = kTable;
  const std::string token = "@MAGIC@";
  table.replace(table.find(token), token.size(), std::to_string(kTableMagic));
  switch (target) {
    case Target::Host: return std::string(hostSource(kHostHeader)) + table + kDynamic;
    case Target::Hip: return std::string(kHipPrimitives) + table + kGpuProtocol + kDynamic;
    case Target::Cuda: break;
  }
  return std::string(kCudaPrimitives) + table + kGpuProtocol + kDynamic;
}

}  // namespace rammer::codegen

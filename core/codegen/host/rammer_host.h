// rammer_host.h: the host target's prelude. The generated kernels are CUDA
// text; this header gives that text a meaning on the CPU, so the system C++
// compiler builds the very same kernels (docs/CODEGEN.md, "Host target").
//
// How CUDA maps onto the CPU (rammer_host_runtime.cpp does the work):
//   grid        a launch; its blocks are scheduled on a few worker threads
//   block       a persistent kernel's vEU is a fiber of its own, so all vEUs
//               are co-resident however many there are: a vEU waiting on a
//               barrier yields its worker to the next vEU
//   kernel text runs once per block, as the block's "leader": outside the
//               rTask bodies it is uniform over the block's threads (thread
//               0 publishes, all threads wait, then a __syncthreads), so one
//               copy of it stands for all of them
//   rTask       the rKernel wrapper fans out over the block's CUDA threads
//               (RAMMER_BLOCK_THREADS): a plain loop when the rKernel has no
//               __syncthreads (syncCount == 0), otherwise one fiber per CUDA
//               thread, and __syncthreads is a barrier of those fibers
//   __shared__  one buffer per block (vEU)
//   steps       std::atomic_ref with acquire/release, as ld.acquire /
//               st.release on the GPU
// Two parts: the ABI between the kernels, the runtime and the harness
// (always), and the CUDA spellings the kernels use (left out where
// RAMMER_HOST_NO_CUDA_NAMES is defined: the runtime and the harness).
#ifndef RAMMER_HOST_H
#define RAMMER_HOST_H

#include <math.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rammer_host {

struct Index3 {
  unsigned x, y, z;
};

// The kernel ABI of core/codegen/generated_program.h.
using KernelFn = void (*)(float* const* buffers, unsigned long long* steps, unsigned long long epoch,
                          unsigned long long* timing, int launch);

// The CUDA threads of the current block during one rTask: `threads` of
// them, `tid` the one running now (plain-loop fan-outs).
struct Fanout {
  int threads = 1;
  int tid = 0;
};

// --- called by the kernels ---
Index3 threadIndex();
Index3 blockIndex();
Index3 blockDimension();
Index3 gridDimension();
float* dynamicShared();  // the block's dynamic shared memory
void syncThreads();      // __syncthreads()
// The current vEU must wait until *step >= want (its barrier found vEU
// `veu` short of completing instruction `order`; veu -1: a dynamic
// program's ready-queue entry `order` is still empty): it gives its worker
// to other vEUs and comes back when steps may have moved.
void blockOn(const unsigned long long* step, unsigned long long want, int veu, int order);
void published();  // after a release store to a step counter: wakes idle workers
Fanout* fanoutBegin(const char* function, int syncs);
void fanoutFibers(Fanout* fanout, void (*body)(void*, int), void* context);
void fanoutEnd(Fanout* fanout);
[[noreturn]] void trap(const char* what);
unsigned long long clockNs();
unsigned long long workerId();

// --- called by the harness (the CUDA runtime calls it needs) ---
struct LaunchConfig {
  KernelFn kernel = nullptr;
  unsigned grid = 1, block = 1;
  size_t sharedBytes = 0;
  bool persistent = true;  // blocks wait on each other: all co-resident (vEU fibers)
  int program = -1;        // for messages
};
// Runs the launch to its end. 0, or 1 with the reason in lastError() (a
// deadlock naming the vEUs and what they wait for, a trap, divergent
// __syncthreads). After a failure every later launch fails too.
int launch(const LaunchConfig& config, void** args);
const char* lastError();
void setWorkers(int workers);  // before the first launch; 0: one per core
int workers();
// What cudaMemsetAsync is to the harness: done at once unless a capture is open.
int memsetAsync(void* p, int value, size_t bytes);

// --- graphs: the harness's stream capture and graph replay (--launch graph) ---
// While a capture is open, launch() and memsetAsync() record their work
// (a launch's arguments by value, as a CUDA graph keeps kernel parameters)
// instead of doing it; replay() does a capture's work in order. Each
// returns 0, or 1 with the reason in lastError().
struct Graph;
int beginCapture();
int endCapture(Graph** graph);
Graph* instantiate(const Graph* graph);  // an executable copy, as cudaGraphInstantiate makes
int replay(const Graph* graph);
void destroyGraph(Graph* graph);

}  // namespace rammer_host

#ifndef RAMMER_HOST_NO_CUDA_NAMES

#define RAMMER_TARGET_HOST 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define threadIdx (::rammer_host::threadIndex())
#define blockIdx (::rammer_host::blockIndex())
#define blockDim (::rammer_host::blockDimension())
#define gridDim (::rammer_host::gridDimension())
#define rammer_smem (::rammer_host::dynamicShared())

inline void __syncthreads() { ::rammer_host::syncThreads(); }
// The protocol's ordering comes from acquire/release on the steps; this is
// the same full fence CUDA's is.
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
[[noreturn]] inline void __trap() { ::rammer_host::trap("__trap()"); }
inline void __nanosleep(unsigned) {}

// The math the rKernels use; the fast-math intrinsics are the exact functions here.
inline float __int_as_float(int v) {
  float f;
  std::memcpy(&f, &v, sizeof f);
  return f;
}
inline int __float_as_int(float f) {
  int v;
  std::memcpy(&v, &f, sizeof v);
  return v;
}
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

// CUDA's atomicAdd is relaxed.
inline float atomicAdd(float* p, float v) { return std::atomic_ref<float>(*p).fetch_add(v, std::memory_order_relaxed); }
inline int atomicAdd(int* p, int v) { return std::atomic_ref<int>(*p).fetch_add(v, std::memory_order_relaxed); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return std::atomic_ref<unsigned long long>(*p).fetch_add(v, std::memory_order_relaxed);
}
inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
  std::atomic_ref<unsigned long long> a(*p);
  unsigned long long old = a.load(std::memory_order_relaxed);
  while (old < v && !a.compare_exchange_weak(old, v, std::memory_order_relaxed)) {
  }
  return old;
}

// The barrier protocol (device_prelude.cpp has the GPU versions).
inline unsigned long long rammer_load_acquire(const unsigned long long* p) {
  return std::atomic_ref<unsigned long long>(*const_cast<unsigned long long*>(p)).load(std::memory_order_acquire);
}
inline void rammer_store_release(unsigned long long* p, unsigned long long v) {
  std::atomic_ref<unsigned long long>(*p).store(v, std::memory_order_release);
}
inline unsigned long long rammer_arrive(unsigned long long* p) {
  return std::atomic_ref<unsigned long long>(*p).fetch_add(1, std::memory_order_acq_rel);
}
[[noreturn]] inline void rammer_trap() { ::rammer_host::trap("the instruction table is missing or corrupt"); }
// Nanoseconds of the steady clock; the "SM" is the worker thread.
inline unsigned long long rammer_clock() { return ::rammer_host::clockNs(); }
inline unsigned long long rammer_smid() { return ::rammer_host::workerId(); }

// Barrier-rTask: wait until every awaited vEU of the pairs {vEU, order}
// shows the run's epoch (in its high 32 bits) and at least order + 1
// completed instructions.
// The block's leader checks the counters (on the GPU its threads share
// them out) and yields its worker while one is short.
inline void rammer_wait(const unsigned long long* steps, unsigned long long epoch, const int* waits, int counters,
                        int tid) {
  (void)tid;
  const unsigned long long tag = epoch << 32;
  for (int j = 0; j < counters; ++j) {
    const int veu = waits[2 * j], order = waits[2 * j + 1];
    const unsigned long long want = tag | (unsigned long long)(order + 1);
    while (rammer_load_acquire(steps + veu) < want) ::rammer_host::blockOn(steps + veu, want, veu, order);
  }
  __threadfence();
  __syncthreads();
}

// After the rTask's closing __syncthreads(): every thread's writes precede the release.
inline void rammer_publish(unsigned long long* step, unsigned long long value, int tid) {
  if (tid == 0) {
    __threadfence();
    rammer_store_release(step, value);
    ::rammer_host::published();
  }
}

// A dynamic program's ready queue: the vEU waits for entry `position` to be
// filled, giving its worker away meanwhile (blockOn with no vEU to name).
inline unsigned long long rammer_wait_entry(const unsigned long long* entry, int position) {
  unsigned long long v;
  while ((v = rammer_load_acquire(entry)) == 0) ::rammer_host::blockOn(entry, 1, -1, position);
  return v;
}

// An rKernel wrapper's call, once per CUDA thread of the block. `call`
// names `tid`, which the lambda's parameter rebinds per thread.
template <class Body>
inline void rammer_block_threads(const char* function, int syncs, Body&& body) {
  ::rammer_host::Fanout* f = ::rammer_host::fanoutBegin(function, syncs);
  if (syncs == 0) {
    for (int t = 0; t < f->threads; ++t) {
      f->tid = t;
      body(t);
    }
  } else {
    ::rammer_host::fanoutFibers(f, [](void* b, int t) { (*static_cast<Body*>(b))(t); }, &body);
  }
  ::rammer_host::fanoutEnd(f);
}
#define RAMMER_BLOCK_THREADS(syncs, call) rammer_block_threads(__func__, syncs, [&](int tid) { call; })

#endif  // RAMMER_HOST_NO_CUDA_NAMES
#endif  // RAMMER_HOST_H

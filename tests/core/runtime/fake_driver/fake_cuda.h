#pragma once
// Test hooks of the stand-in CUDA driver (fake_cuda.cpp): a shared library
// that exports the driver entry points the runtime loads, runs "kernels" as
// host functions the test registers by name, and keeps device memory in
// host memory. Lets the runner's wiring (buffers, views, uploads, zeroing,
// epochs, timing, watchdog, occupancy refusal, graph capture and replay)
// be tested without a GPU.
//
// Graphs: while a stream captures (cuStreamBeginCapture_v2 until
// cuStreamEndCapture), cuLaunchKernel and cuMemsetD32Async on it are
// recorded, not run; cuGraphLaunch of an instantiated graph runs them in
// order. A launch's parameters are copied at capture, by value, as the
// kernel ABI lays them out (docs/CODEGEN.md): four 8-byte arguments
// (buffers, steps, epoch, timing), then one int (the launch index). Calls a
// real driver refuses during a thread-local capture (synchronous copies,
// allocations, stream synchronization, event queries) fail with
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED. Built with
// RAMMER_FAKE_CUDA_NO_GRAPHS, the library exports no graph entry points
// (a driver too old for graphs).
// Environment, for running whole programs on it: RAMMER_FAKE_CUDA_SMS=N,
// RAMMER_FAKE_CUDA_NOOP_KERNELS=1 (every kernel does nothing).
#include <cstdint>

extern "C" {

// A kernel's host stand-in: grid and block sizes and the launch's
// parameter array (the ABI's five arguments).
using FakeKernelFn = void (*)(int grid, int block, void** params);

struct FakeCudaHooks {
  void (*reset)(int deviceCount, int sms, int blocksPerSM);
  // `name` "*" registers a catch-all for kernels not registered by name.
  void (*registerKernel)(const char* name, FakeKernelFn fn, int hangs);
  int (*liveAllocations)();
  int (*launches)();        // kernels run (directly or by a graph replay), not those captured
  int (*captures)();        // cuStreamEndCapture calls that made a graph
  int (*instantiations)();  // cuGraphInstantiateWithFlags calls
  int (*replays)();         // cuGraphLaunch calls
  int (*liveGraphs)();      // graphs and executable graphs not destroyed
};

// The hooks of this library (looked up with dlsym by the tests).
const FakeCudaHooks* fake_cuda_hooks();
}

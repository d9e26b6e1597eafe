#pragma once
// Test hooks of the stand-in CUDA driver (fake_cuda.cpp): a shared library
// that exports the driver entry points the runtime loads, runs "kernels" as
// host functions the test registers by name, and keeps device memory in
// host memory. Lets the runner's wiring (buffers, views, uploads, zeroing,
// epochs, timing, watchdog, occupancy refusal) be tested without a GPU.
// Environment, for running whole programs on it: RAMMER_FAKE_CUDA_SMS=N,
// RAMMER_FAKE_CUDA_NOOP_KERNELS=1 (every kernel does nothing).
#include <cstdint>

extern "C" {

// A kernel's host stand-in: grid and block sizes and the launch's
// parameter array (the ABI's four arguments).
using FakeKernelFn = void (*)(int grid, int block, void** params);

struct FakeCudaHooks {
  void (*reset)(int deviceCount, int sms, int blocksPerSM);
  // `name` "*" registers a catch-all for kernels not registered by name.
  void (*registerKernel)(const char* name, FakeKernelFn fn, int hangs);
  int (*liveAllocations)();
  int (*launches)();
};

// The hooks of this library (looked up with dlsym by the tests).
const FakeCudaHooks* fake_cuda_hooks();
}

#pragma once
// The CUDA driver API, loaded from libcuda.so.1 with dlopen. Only the few
// types and entry points the runtime uses are declared here (values from the
// driver API reference), so building never needs the CUDA toolkit. Where
// cuda.h maps a name to a versioned symbol (cuMemAlloc -> cuMemAlloc_v2),
// the versioned symbol is the one looked up. The graph entry points are
// optional: a driver without them still runs stream launches, and a graph
// launch says which are missing.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/runtime/shared_library.h"

namespace rammer::runtime {

namespace cu {
using Result = int;  // CUresult
using Device = int;  // CUdevice
using DevicePtr = unsigned long long;  // CUdeviceptr
struct CtxSt;
struct ModSt;
struct FuncSt;
struct StreamSt;
struct EventSt;
struct GraphSt;
struct GraphExecSt;
using Context = CtxSt*;
using Module = ModSt*;
using Function = FuncSt*;
using Stream = StreamSt*;
using Event = EventSt*;
using Graph = GraphSt*;
using GraphExec = GraphExecSt*;

inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorNoDevice = 100;
inline constexpr Result kErrorNotReady = 600;

// CUdevice_attribute
inline constexpr int kAttrMultiprocessorCount = 16;
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
// CUfunction_attribute
inline constexpr int kFuncAttrNumRegs = 4;
inline constexpr int kFuncAttrMaxDynamicSharedSizeBytes = 8;
inline constexpr unsigned kStreamNonBlocking = 1;
inline constexpr unsigned kEventDefault = 0;
// CUstreamCaptureMode: only this thread is kept from calls that are unsafe
// during a capture (another thread of the process may use the driver).
inline constexpr int kStreamCaptureModeThreadLocal = 1;
}  // namespace cu

struct CudaDriver {
  using Init = cu::Result (*)(unsigned);
  using DriverGetVersion = cu::Result (*)(int*);
  using DeviceGetCount = cu::Result (*)(int*);
  using DeviceGet = cu::Result (*)(cu::Device*, int);
  using DeviceGetAttribute = cu::Result (*)(int*, int, cu::Device);
  using DeviceGetName = cu::Result (*)(char*, int, cu::Device);
  using PrimaryCtxRetain = cu::Result (*)(cu::Context*, cu::Device);
  using PrimaryCtxRelease = cu::Result (*)(cu::Device);
  using CtxSetCurrent = cu::Result (*)(cu::Context);
  using ModuleLoadData = cu::Result (*)(cu::Module*, const void*);
  using ModuleUnload = cu::Result (*)(cu::Module);
  using ModuleGetFunction = cu::Result (*)(cu::Function*, cu::Module, const char*);
  using FuncGetAttribute = cu::Result (*)(int*, int, cu::Function);
  using FuncSetAttribute = cu::Result (*)(cu::Function, int, int);
  using OccupancyMaxActiveBlocks = cu::Result (*)(int*, cu::Function, int, size_t);
  using MemAlloc = cu::Result (*)(cu::DevicePtr*, size_t);
  using MemFree = cu::Result (*)(cu::DevicePtr);
  using MemcpyHtoD = cu::Result (*)(cu::DevicePtr, const void*, size_t);
  using MemcpyDtoH = cu::Result (*)(void*, cu::DevicePtr, size_t);
  using MemsetD32Async = cu::Result (*)(cu::DevicePtr, unsigned, size_t, cu::Stream);
  using LaunchKernel = cu::Result (*)(cu::Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, cu::Stream, void**, void**);
  using StreamCreate = cu::Result (*)(cu::Stream*, unsigned);
  using StreamDestroy = cu::Result (*)(cu::Stream);
  using StreamSynchronize = cu::Result (*)(cu::Stream);
  using EventCreate = cu::Result (*)(cu::Event*, unsigned);
  using EventDestroy = cu::Result (*)(cu::Event);
  using EventRecord = cu::Result (*)(cu::Event, cu::Stream);
  using EventQuery = cu::Result (*)(cu::Event);
  using EventElapsedTime = cu::Result (*)(float*, cu::Event, cu::Event);
  using GetErrorString = cu::Result (*)(cu::Result, const char**);
  using StreamBeginCapture = cu::Result (*)(cu::Stream, int);
  using StreamEndCapture = cu::Result (*)(cu::Stream, cu::Graph*);
  using GraphInstantiate = cu::Result (*)(cu::GraphExec*, cu::Graph, unsigned long long);
  using GraphLaunch = cu::Result (*)(cu::GraphExec, cu::Stream);
  using GraphExecDestroy = cu::Result (*)(cu::GraphExec);
  using GraphDestroy = cu::Result (*)(cu::Graph);

  // libcuda.so.1 is what the driver package installs (libcuda.so is a
  // development link that may be missing).
  static constexpr const char* kDefaultLibrary = "libcuda.so.1";

  // Loads the library and every required entry point; an error says which
  // is missing. The graph entry points may be absent (graphsMissing).
  static ir::Result<std::shared_ptr<const CudaDriver>> load(const std::string& library = kDefaultLibrary);

  // "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" style text.
  std::string errorText(cu::Result r, const std::string& call) const;
  // true on kSuccess, else the error with errorText's message.
  ir::Result<bool> check(cu::Result r, const std::string& call) const;
  bool hasGraphs() const { return graphsMissing.empty(); }

  std::shared_ptr<SharedLibrary> library;
  Init cuInit = nullptr;
  DriverGetVersion cuDriverGetVersion = nullptr;
  DeviceGetCount cuDeviceGetCount = nullptr;
  DeviceGet cuDeviceGet = nullptr;
  DeviceGetAttribute cuDeviceGetAttribute = nullptr;
  DeviceGetName cuDeviceGetName = nullptr;
  PrimaryCtxRetain cuDevicePrimaryCtxRetain = nullptr;
  PrimaryCtxRelease cuDevicePrimaryCtxRelease = nullptr;
  CtxSetCurrent cuCtxSetCurrent = nullptr;
  ModuleLoadData cuModuleLoadData = nullptr;
  ModuleUnload cuModuleUnload = nullptr;
  ModuleGetFunction cuModuleGetFunction = nullptr;
  FuncGetAttribute cuFuncGetAttribute = nullptr;
  FuncSetAttribute cuFuncSetAttribute = nullptr;
  OccupancyMaxActiveBlocks cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;
  MemAlloc cuMemAlloc = nullptr;
  MemFree cuMemFree = nullptr;
  MemcpyHtoD cuMemcpyHtoD = nullptr;
  MemcpyDtoH cuMemcpyDtoH = nullptr;
  MemsetD32Async cuMemsetD32Async = nullptr;
  LaunchKernel cuLaunchKernel = nullptr;
  StreamCreate cuStreamCreate = nullptr;
  StreamDestroy cuStreamDestroy = nullptr;
  StreamSynchronize cuStreamSynchronize = nullptr;
  EventCreate cuEventCreate = nullptr;
  EventDestroy cuEventDestroy = nullptr;
  EventRecord cuEventRecord = nullptr;
  EventQuery cuEventQuery = nullptr;
  EventElapsedTime cuEventElapsedTime = nullptr;
  GetErrorString cuGetErrorString = nullptr;
  GetErrorString cuGetErrorName = nullptr;
  // Stream capture and graphs (LaunchMode::Graph): all null when any is missing.
  struct Graphs {
    StreamBeginCapture cuStreamBeginCapture = nullptr;  // cuStreamBeginCapture_v2
    StreamEndCapture cuStreamEndCapture = nullptr;
    GraphInstantiate cuGraphInstantiate = nullptr;  // cuGraphInstantiateWithFlags
    GraphLaunch cuGraphLaunch = nullptr;
    GraphExecDestroy cuGraphExecDestroy = nullptr;
    GraphDestroy cuGraphDestroy = nullptr;
  } graphs;
  std::string graphsMissing;  // "cuGraphLaunch, ..." the library lacks; empty when it has them all
};

}  // namespace rammer::runtime

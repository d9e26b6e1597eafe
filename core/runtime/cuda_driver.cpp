#include "core/runtime/cuda_driver.h"

namespace rammer::runtime {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The graph entry points, all or none: a partial set is no use to a run.
void bindGraphs(const SharedLibrary& l, CudaDriver& d) {
  CudaDriver::Graphs g;
  std::vector<std::string> missing;
  l.bind(g.cuStreamBeginCapture, "cuStreamBeginCapture_v2", missing);
  l.bind(g.cuStreamEndCapture, "cuStreamEndCapture", missing);
  l.bind(g.cuGraphInstantiate, "cuGraphInstantiateWithFlags", missing);
  l.bind(g.cuGraphLaunch, "cuGraphLaunch", missing);
  l.bind(g.cuGraphExecDestroy, "cuGraphExecDestroy", missing);
  l.bind(g.cuGraphDestroy, "cuGraphDestroy", missing);
  d.graphsMissing = joined(missing);
  if (missing.empty()) d.graphs = g;
}

}  // namespace

ir::Result<std::shared_ptr<const CudaDriver>> CudaDriver::load(const std::string& library) {
  auto lib = SharedLibrary::open({library});
  if (!lib) return ir::makeError("no CUDA driver (" + library + " not found): " + lib.errorText());
  auto d = std::make_shared<CudaDriver>();
  d->library = lib.value();
  std::vector<std::string> missing;
  const SharedLibrary& l = *d->library;
  l.bind(d->cuInit, "cuInit", missing);
  l.bind(d->cuDriverGetVersion, "cuDriverGetVersion", missing);
  l.bind(d->cuDeviceGetCount, "cuDeviceGetCount", missing);
  l.bind(d->cuDeviceGet, "cuDeviceGet", missing);
  l.bind(d->cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
  l.bind(d->cuDeviceGetName, "cuDeviceGetName", missing);
  l.bind(d->cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  l.bind(d->cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", missing);
  l.bind(d->cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  l.bind(d->cuModuleLoadData, "cuModuleLoadData", missing);
  l.bind(d->cuModuleUnload, "cuModuleUnload", missing);
  l.bind(d->cuModuleGetFunction, "cuModuleGetFunction", missing);
  l.bind(d->cuFuncGetAttribute, "cuFuncGetAttribute", missing);
  l.bind(d->cuFuncSetAttribute, "cuFuncSetAttribute", missing);
  l.bind(d->cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", missing);
  l.bind(d->cuMemAlloc, "cuMemAlloc_v2", missing);
  l.bind(d->cuMemFree, "cuMemFree_v2", missing);
  l.bind(d->cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
  l.bind(d->cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing);
  l.bind(d->cuMemsetD32Async, "cuMemsetD32Async", missing);
  l.bind(d->cuLaunchKernel, "cuLaunchKernel", missing);
  l.bind(d->cuStreamCreate, "cuStreamCreate", missing);
  l.bind(d->cuStreamDestroy, "cuStreamDestroy_v2", missing);
  l.bind(d->cuStreamSynchronize, "cuStreamSynchronize", missing);
  l.bind(d->cuEventCreate, "cuEventCreate", missing);
  l.bind(d->cuEventDestroy, "cuEventDestroy_v2", missing);
  l.bind(d->cuEventRecord, "cuEventRecord", missing);
  l.bind(d->cuEventQuery, "cuEventQuery", missing);
  // CUDA 12.8 drivers added _v2 (what cuda.h 13 maps to); older ones have only the first.
  l.bind(d->cuEventElapsedTime, "cuEventElapsedTime_v2", missing);
  if (!d->cuEventElapsedTime) {
    missing.pop_back();
    l.bind(d->cuEventElapsedTime, "cuEventElapsedTime", missing);
  }
  l.bind(d->cuGetErrorString, "cuGetErrorString", missing);
  l.bind(d->cuGetErrorName, "cuGetErrorName", missing);
  if (!missing.empty())
    return ir::makeError("the CUDA driver " + library + " is too old or not a CUDA driver: missing " + joined(missing));
  bindGraphs(l, *d);
  return std::shared_ptr<const CudaDriver>(std::move(d));
}

std::string CudaDriver::errorText(cu::Result r, const std::string& call) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &text);
  std::string out = call + " failed: " + (name ? name : "CUDA error " + std::to_string(r));
  if (text) out += std::string(" (") + text + ")";
  return out;
}

ir::Result<bool> CudaDriver::check(cu::Result r, const std::string& call) const {
  if (r == cu::kSuccess) return true;
  return ir::makeError(errorText(r, call));
}

}  // namespace rammer::runtime

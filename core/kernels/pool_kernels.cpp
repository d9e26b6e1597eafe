#include "core/kernels/pool_kernels.h"

#include "core/kernels/cuda_library.h"
#include "core/ops/nn/conv_geometry.h"

namespace rammer::kernels {

std::vector<RKernel> windowPoolKernels(const NodeInfo& info) {
  const bool isMax = info.node->opType == "MaxPool";
  if (isMax && info.numOutputs() > 1 && info.outPresent[1])
    throw ops::OpError("MaxPool's Indices output has no rKernel (it is int64)");
  const ir::Shape& x = info.inShapes.at(0);
  if (x.size() < 3 || x.size() > 5) throw ops::OpError("pooling rKernels take 1-D to 3-D windows");
  const ops::OpContext ctx = info.context();
  const ops::WindowAttrs attrs = ops::readWindowAttrs(ctx, x.size() - 2);
  const ops::Window3 w = ops::slidingWindow3(ctx, attrs, std::vector<int64_t>(x.begin() + 2, x.end()));
  const bool includePad = info.node->attrs.getInt("count_include_pad", 0) != 0;
  const int64_t planes = x[0] * x[1];
  const int64_t outSize = w.outSize(), inSize = w.inSize();
  const int64_t total = planes * outSize;
  if (total != ir::numElements(info.outShapes[0]))
    throw ops::OpError("pool geometry disagrees with the output shape " + ir::shapeToString(info.outShapes[0]));

  ElementKernelSpec spec;
  spec.family = isMax ? "maxpool" : "avgpool";
  spec.total = total;
  spec.flops = static_cast<double>(total) * static_cast<double>(w.kernelSize());
  spec.bytes = 4.0 * static_cast<double>(planes * inSize + total);
  // The body is window_pool.cuh's; each spatial axis (leading 1s for 1-D
  // and 2-D windows) becomes one RammerWindowAxis.
  spec.library = kWindowPool;
  spec.templateName = "rammer_window_pool";
  spec.templateArgs = {boolArg(isMax), boolArg(includePad), llArg(outSize), llArg(inSize)};
  for (int d = 0; d < 3; ++d) {
    const std::vector<int64_t> axis = {w.out[d], w.in[d], w.kernel[d], w.stride[d], w.padBegin[d], w.padEnd[d], w.dilation[d]};
    std::string arg = "RammerWindowAxis<";
    for (size_t a = 0; a < axis.size(); ++a) arg += (a ? ", " : "") + std::to_string(axis[a]);
    spec.templateArgs.push_back(arg + ">");
  }
  return elementKernels(info, spec);
}

std::vector<RKernel> globalPoolKernels(const NodeInfo& info) {
  const bool isMax = info.node->opType == "GlobalMaxPool";
  const ir::Shape& x = info.inShapes.at(0);
  if (x.size() < 2) throw ops::OpError("global pooling needs [N, C, ...]");
  const int64_t planes = x[0] * x[1];
  const int64_t plane = planes > 0 ? ir::numElements(x) / planes : 0;
  if (planes == 0) throw ops::OpError("has no planes to pool");
  const std::string family = isMax ? "global_maxpool" : "global_avgpool";
  const double flops = static_cast<double>(planes * plane), bytes = 4.0 * static_cast<double>(planes * (plane + 1));
  // What the variants share: the shell, the body template
  // (core/kernels/cuda/global_pool.cuh) and its instantiation; each says
  // which planes its rTasks write.
  auto variant = [&](const std::string& suffix, decltype(RKernel::params) params, int64_t rtasks, int threads,
                     int64_t shared, const std::string& templateArgs, int segment) {
    RKernel k = kernelShell(info, family + suffix, family, std::move(params), rtasks, threads, shared, flops, bytes);
    if (segment > 0) k.syncCount += segmentReduceSyncs(segment);  // block_reduce.cuh's tree over `segment` threads
    useCudaLibrary(k, kGlobalPool);
    k.cudaSource = cudaInstantiation(
        k.cudaFunction, info.numInputs(), info.numOutputs(),
        {"rammer_global_pool" + suffix, {indexType(planes * plane + threads), templateArgs, boolArg(isMax)}, {}});
    return k;
  };
  const std::string n = std::to_string(planes) + "LL", len = std::to_string(plane) + "LL";
  std::vector<RKernel> out;

  // Thread per plane: 128 planes per rTask, no barriers.
  {
    const int threads = powerOfTwoThreads(planes, 32, 128);
    RKernel k = variant("_thread", {{"planes_per_rtask", threads}, {"plane", plane}}, divUp(planes, threads), threads, 0,
                        std::to_string(threads) + ", " + n + ", " + len, 0);
    k.written = rowsPerRTask(threads, planes, 1);
    out.push_back(std::move(k));
  }
  // Block per plane: the threads share the plane and reduce in shared memory.
  {
    const int threads = powerOfTwoThreads(plane, 32, 256);
    RKernel k = variant("_block", {{"threads", threads}, {"plane", plane}}, planes, threads, 4 * threads,
                        std::to_string(threads) + ", " + len, threads);
    k.written = rowsPerRTask(1, planes, 1);
    out.push_back(std::move(k));
  }
  // A warp per plane, kWarpRows planes per rTask: a warp's lanes read one
  // plane's consecutive elements together, where the thread-per-plane
  // variant's warp reads 32 planes `plane` elements apart.
  if (plane >= kWarpLanes) {
    const int threads = kWarpRows * kWarpLanes;
    RKernel k = variant("_warp", {{"planes_per_rtask", kWarpRows}, {"plane", plane}}, divUp(planes, kWarpRows), threads,
                        4 * threads,
                        std::to_string(threads) + ", " + std::to_string(kWarpRows) + ", " +
                            std::to_string(kWarpLanes) + ", " + n + ", " + len,
                        kWarpLanes);
    k.written = rowsPerRTask(kWarpRows, planes, 1);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

#include "core/kernels/softmax_kernels.h"

#include <algorithm>
#include <cmath>

#include "core/kernels/cuda_library.h"

namespace rammer::kernels {

namespace {

struct Rows {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t count() const { return outer * inner; }
};

Rows rowsOf(const NodeInfo& info) {
  const ir::Shape& s = info.inShapes.at(0);
  const auto rank = static_cast<int64_t>(s.size());
  const int64_t opset = info.graph->opsetVersion;
  const bool legacy = opset < 13;
  int64_t axis = info.node->attrs.getInt("axis", legacy ? 1 : -1);
  if (!(legacy && axis == rank)) axis = ops::normalizeAxis(axis, rank);
  auto prod = [&](int64_t b, int64_t e) {
    int64_t p = 1;
    for (int64_t i = b; i < e; ++i) p *= s[static_cast<size_t>(i)];
    return p;
  };
  if (legacy) return {prod(0, axis), prod(axis, rank), 1};
  return {prod(0, axis), s[static_cast<size_t>(axis)], prod(axis + 1, rank)};
}

}  // namespace

std::vector<RKernel> softmaxKernels(const NodeInfo& info) {
  const bool logSoftmax = info.node->opType == "LogSoftmax";
  const Rows g = rowsOf(info);
  if (g.count() == 0 || g.n == 0) throw ops::OpError("has no elements to normalise");
  const std::string family = logSoftmax ? "logsoftmax" : "softmax";
  const double elems = static_cast<double>(g.count() * g.n);
  const std::string idx = indexType(g.count() * g.n + 1024);
  // The body is softmax.cuh's template; the rKernel's function instantiates it.
  auto instantiate = [&](RKernel& k, const std::string& body, const std::string& args, bool shared) {
    useCudaLibrary(k, kSoftmax);
    std::vector<std::string> callArgs = {"rtask_id", "tid", "smem", "in0", "out0"};
    if (!shared) callArgs.erase(callArgs.begin() + 2);
    k.cudaSource = cudaInstantiation(
        k.cudaFunction, info.numInputs(), info.numOutputs(),
        {body, {idx, std::to_string(g.n), std::to_string(g.inner), args, boolArg(logSoftmax)}, callArgs});
  };
  const std::string count = std::to_string(g.count()) + "LL";
  std::vector<RKernel> out;

  // One thread per row, 128 rows per rTask.
  {
    const int threads = powerOfTwoThreads(g.count(), 32, 128);
    RKernel k = kernelShell(info, family + "_rows", family, {{"rows_per_rtask", threads}, {"row", g.n}},
                            divUp(g.count(), threads), threads, 0, 5 * elems, 8 * elems);
    instantiate(k, "rammer_softmax_rows", std::to_string(threads) + ", " + count, false);
    const int64_t per = threads;
    k.written = rowsPerRTask(per, g.count(), g.n, g.inner);
    out.push_back(std::move(k));
  }
  // One row per rTask, its threads reducing max and sum in shared memory.
  {
    const int threads = powerOfTwoThreads(g.n, 32, 256);
    RKernel k = kernelShell(info, family + "_block", family, {{"threads", threads}, {"row", g.n}}, g.count(), threads,
                            4 * threads, 5 * elems, 12 * elems);
    instantiate(k, "rammer_softmax_groups", "1, " + std::to_string(threads) + ", " + count, true);
    k.syncCount = 2 * segmentReduceSyncs(threads);
    k.written = rowsPerRTask(1, g.count(), g.n, g.inner);
    out.push_back(std::move(k));
  }
  // A warp per contiguous row (the softmax axis innermost), kWarpRows rows
  // per rTask: a warp's lanes read one row's consecutive elements together,
  // where the thread-per-row variant's warp reads 32 rows N elements apart,
  // and short rows no longer leave most of a block-per-row rTask idle.
  if (g.inner == 1 && g.n >= kWarpLanes && g.n <= 4096) {
    const int threads = kWarpRows * kWarpLanes;
    RKernel k = kernelShell(info, family + "_warp", family, {{"rows_per_rtask", kWarpRows}, {"row", g.n}},
                            divUp(g.count(), kWarpRows), threads, 4 * threads, 5 * elems, 12 * elems);
    instantiate(k, "rammer_softmax_groups", std::to_string(kWarpRows) + ", " + std::to_string(kWarpLanes) + ", " + count,
                true);
    k.syncCount = 2 * segmentReduceSyncs(kWarpLanes);
    k.written = rowsPerRTask(kWarpRows, g.count(), g.n, g.inner);
    out.push_back(std::move(k));
  }
  // Long rows (1,024 elements and up: attention over long sequences, big
  // vocabularies): up to 1,024 threads per row, and the maximum and the sum
  // found together in one pass (the sum rescaled whenever the maximum
  // grows), so the row is read twice instead of three times.
  if (g.n >= 1024) {
    const int threads = powerOfTwoThreads(g.n / 4, 256, 1024);
    // Two reads and one write per element.
    RKernel k = kernelShell(info, family + "_online", family, {{"threads", threads}, {"row", g.n}}, g.count(), threads,
                            8 * threads, 6 * elems, 12 * elems);
    instantiate(k, "rammer_softmax_online", std::to_string(threads), true);
    k.syncCount = segmentReduceSyncs(threads);  // the (max, sum) tree has a block reduction's barriers
    k.written = rowsPerRTask(1, g.count(), g.n, g.inner);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

#include "core/kernels/softmax_kernels.h"

#include <algorithm>
#include <cmath>

namespace rammer::kernels {

namespace {

struct Rows {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  // Offset of row r's first element; its elements are `inner` apart.
  int64_t base(int64_t r) const { return (r / inner) * n * inner + r % inner; }
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

// The reference order: maximum, sum of exp(x - m), then normalise.
void cpuRow(bool logSoftmax, const Rows& g, int64_t r, const float* in, float* out) {
  const float* p = in + g.base(r);
  float* q = out + g.base(r);
  const int64_t st = g.inner;
  float m = p[0];
  for (int64_t k = 1; k < g.n; ++k) m = p[k * st] > m ? p[k * st] : m;
  float sum = 0;
  for (int64_t k = 0; k < g.n; ++k) sum += std::exp(p[k * st] - m);
  if (logSoftmax) {
    const float ls = std::log(sum);
    for (int64_t k = 0; k < g.n; ++k) q[k * st] = p[k * st] - m - ls;
  } else {
    for (int64_t k = 0; k < g.n; ++k) q[k * st] = std::exp(p[k * st] - m) / sum;
  }
}

// The online variant as the GPU computes it: per thread a running (max,
// sum) over its strided elements, then the threads' pairs merged.
void cpuOnlineRow(bool logSoftmax, const Rows& g, int64_t r, int threads, const float* in, float* out) {
  const float* p = in + g.base(r);
  float* q = out + g.base(r);
  const int64_t st = g.inner;
  float m = -INFINITY, sum = 0;
  for (int t = 0; t < threads; ++t) {
    float tm = -INFINITY, ts = 0;
    for (int64_t k = t; k < g.n; k += threads) {
      const float x = p[k * st];
      if (x > tm) {
        ts = ts * std::exp(tm - x) + 1.0f;
        tm = x;
      } else if (tm != -INFINITY) {
        ts += std::exp(x - tm);
      }
    }
    const float mm = std::max(m, tm);
    sum = (m == -INFINITY ? 0.0f : sum * std::exp(m - mm)) + (tm == -INFINITY ? 0.0f : ts * std::exp(tm - mm));
    m = mm;
  }
  if (logSoftmax) {
    const float ls = std::log(sum);
    for (int64_t k = 0; k < g.n; ++k) q[k * st] = p[k * st] - m - ls;
  } else {
    for (int64_t k = 0; k < g.n; ++k) q[k * st] = std::exp(p[k * st] - m) / sum;
  }
}

std::string writeLoop(bool logSoftmax, const std::string& first, const std::string& step, const std::string& indent) {
  return indent + "for (int k = " + first + "; k < N; k += " + step + ") " +
         (logSoftmax ? "q[k * S] = p[k * S] - m - logf(sum);\n" : "q[k * S] = expf(p[k * S] - m) / sum;\n");
}

}  // namespace

std::vector<RKernel> softmaxKernels(const NodeInfo& info) {
  const bool logSoftmax = info.node->opType == "LogSoftmax";
  const Rows g = rowsOf(info);
  if (g.count() == 0 || g.n == 0) throw ops::OpError("has no elements to normalise");
  const std::string family = logSoftmax ? "logsoftmax" : "softmax";
  const double elems = static_cast<double>(g.count() * g.n);
  const std::string idx = indexType(g.count() * g.n + 1024);
  auto n = [](int64_t v) { return std::to_string(v); };
  // Shared prologue: row base pointers for row `row`.
  auto rowHead = [&](const std::string& row) {
    return "    const " + idx + " base = (" + row + " / " + n(g.inner) + ") * " + n(g.n * g.inner) + " + " + row + " % " +
           n(g.inner) + ";\n    const float* p = in0 + base;\n    float* q = out0 + base;\n";
  };
  const std::string consts = "  const int N = " + n(g.n) + "; const int S = " + n(g.inner) + ";\n";
  std::vector<RKernel> out;

  // One thread per row, 128 rows per rTask.
  {
    const int threads = powerOfTwoThreads(g.count(), 32, 128);
    RKernel k = kernelShell(info, family + "_rows", family, {{"rows_per_rtask", threads}, {"row", g.n}},
                            divUp(g.count(), threads), threads, 0, 5 * elems, 8 * elems);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs()) + "  (void)smem;\n" + consts;
    s += "  if (tid >= " + n(threads) + ") return;\n";
    s += "  const " + idx + " row = (" + idx + ")rtask_id * " + n(threads) + " + tid;\n";
    s += "  if (row >= " + n(g.count()) + ") return;\n  {\n" + rowHead("row");
    s += "    float m = p[0];\n    for (int k = 1; k < N; ++k) m = p[k * S] > m ? p[k * S] : m;\n";
    s += "    float sum = 0.0f;\n    for (int k = 0; k < N; ++k) sum += expf(p[k * S] - m);\n";
    s += writeLoop(logSoftmax, "0", "1", "    ") + "  }\n}\n";
    k.cudaSource = s;
    const int64_t per = threads;
    k.cpu = [g, per, logSoftmax](int64_t task, const TaskBuffers& b, float*) {
      for (int64_t r = task * per; r < std::min(g.count(), (task + 1) * per); ++r)
        cpuRow(logSoftmax, g, r, b.inputs[0], b.outputs[0]);
    };
    out.push_back(std::move(k));
  }
  // One row per rTask, its threads reducing max and sum in shared memory.
  {
    const int threads = powerOfTwoThreads(g.n, 32, 256);
    RKernel k = kernelShell(info, family + "_block", family, {{"threads", threads}, {"row", g.n}}, g.count(), threads,
                            4 * threads, 5 * elems, 12 * elems);
    const std::string t = n(threads);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs()) + consts;
    s += "  const " + idx + " row = rtask_id;\n" + rowHead("row");
    s += "  const bool active = tid < " + t + ";\n";
    s += "  float m = -INFINITY;\n  if (active) for (int k = tid; k < N; k += " + t +
         ") m = p[k * S] > m ? p[k * S] : m;\n";
    int syncs = 0;
    s += cudaBlockReduce("m", "(b > a ? b : a)", threads, syncs);
    s += "  float sum = 0.0f;\n  if (active) for (int k = tid; k < N; k += " + t + ") sum += expf(p[k * S] - m);\n";
    s += cudaBlockReduce("sum", "(a + b)", threads, syncs);
    s += "  if (active) {\n" + writeLoop(logSoftmax, "tid", t, "    ") + "  }\n}\n";
    k.syncCount = syncs;
    k.cudaSource = s;
    k.cpu = [g, logSoftmax](int64_t task, const TaskBuffers& b, float*) {
      cpuRow(logSoftmax, g, task, b.inputs[0], b.outputs[0]);
    };
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
    const std::string t = n(threads), lanes = n(kWarpLanes);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs()) + consts;
    s += "  const " + idx + " first = (" + idx + ")rtask_id * " + n(kWarpRows) + " + (tid / " + lanes + ");\n";
    s += "  const int lane = tid % " + lanes + ";\n";
    s += "  const bool active = tid < " + t + " && first < " + n(g.count()) + ";\n";
    s += "  const " + idx + " row = active ? first : 0;\n" + rowHead("row");
    s += "  float m = -INFINITY;\n  if (active) for (int k = lane; k < N; k += " + lanes +
         ") m = p[k * S] > m ? p[k * S] : m;\n";
    int syncs = 0;
    s += cudaSegmentReduce("m", "(b > a ? b : a)", threads, kWarpLanes, syncs);
    s += "  float sum = 0.0f;\n  if (active) for (int k = lane; k < N; k += " + lanes + ") sum += expf(p[k * S] - m);\n";
    s += cudaSegmentReduce("sum", "(a + b)", threads, kWarpLanes, syncs);
    s += "  if (active) {\n" + writeLoop(logSoftmax, "lane", lanes, "    ") + "  }\n}\n";
    k.syncCount = syncs;
    k.cudaSource = s;
    k.cpu = [g, logSoftmax](int64_t task, const TaskBuffers& b, float*) {
      for (int64_t r = task * kWarpRows; r < std::min(g.count(), (task + 1) * kWarpRows); ++r)
        cpuRow(logSoftmax, g, r, b.inputs[0], b.outputs[0]);
    };
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
    const std::string t = n(threads);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs()) + consts;
    s += "  const " + idx + " row = rtask_id;\n" + rowHead("row");
    s += "  const bool active = tid < " + t + ";\n";
    s += "  float m = -INFINITY, sum = 0.0f;\n";
    s += "  if (active) for (int k = tid; k < N; k += " + t + ") {\n";
    s += "    const float x = p[k * S];\n";
    s += "    if (x > m) { sum = sum * expf(m - x) + 1.0f; m = x; }\n";
    s += "    else if (m != -INFINITY) sum += expf(x - m);\n  }\n";
    // Pairs (max, sum) merged by a tree in shared memory: [0, T) maxima, [T, 2T) sums.
    s += "  if (active) { smem[tid] = m; smem[" + t + " + tid] = sum; }\n  __syncthreads();\n";
    s += "  for (int h = " + n(threads / 2) + "; h > 0; h >>= 1) {\n";
    s += "    if (tid < h) {\n";
    s += "      const float am = smem[tid], bm = smem[tid + h], mm = am > bm ? am : bm;\n";
    s += "      const float as = am == -INFINITY ? 0.0f : smem[" + t + " + tid] * expf(am - mm);\n";
    s += "      const float bs = bm == -INFINITY ? 0.0f : smem[" + t + " + tid + h] * expf(bm - mm);\n";
    s += "      smem[tid] = mm; smem[" + t + " + tid] = as + bs;\n";
    s += "    }\n    __syncthreads();\n  }\n";
    s += "  m = smem[0]; sum = smem[" + t + "];\n  __syncthreads();\n";
    s += "  if (active) {\n" + writeLoop(logSoftmax, "tid", t, "    ") + "  }\n}\n";
    int steps = 0;
    for (int h = threads / 2; h > 0; h >>= 1) ++steps;
    k.syncCount = 2 + steps;
    k.cudaSource = s;
    k.cpu = [g, threads, logSoftmax](int64_t task, const TaskBuffers& b, float*) {
      cpuOnlineRow(logSoftmax, g, task, threads, b.inputs[0], b.outputs[0]);
    };
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

#include "core/kernels/norm_kernels.h"

#include <algorithm>
#include <cmath>

namespace rammer::kernels {

namespace {

struct LayerRows {
  int64_t rows = 0, d = 0;
  bool scaleScalar = false, hasBias = false, biasScalar = false;
  float eps = 1e-5f;
};

LayerRows rowsOf(const NodeInfo& info) {
  const ir::Shape& x = info.inShapes.at(0);
  if (x.empty()) throw ops::OpError("X must have rank >= 1");
  for (size_t o = 1; o < info.numOutputs(); ++o)
    if (info.outPresent[o]) throw ops::OpError("rKernels compute Y only; Mean and InvStdDev are used");
  const auto rank = static_cast<int64_t>(x.size());
  const int64_t axis = ops::normalizeAxis(info.node->attrs.getInt("axis", -1), rank);
  LayerRows r;
  r.rows = 1;
  r.d = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? r.rows : r.d) *= x[static_cast<size_t>(i)];
  r.eps = info.node->attrs.getFloat("epsilon", 1e-5f);
  // Scale and B: the whole normalized shape (D elements) or one value.
  auto kind = [&](size_t slot, const char* what) {
    const int64_t n = ir::numElements(info.inShapes.at(slot));
    if (n == r.d) return false;
    if (n == 1) return true;
    throw ops::OpError(std::string(what) + " broadcasts over part of the normalized shape; rKernels take all of it or one value");
  };
  r.scaleScalar = kind(1, "Scale");
  r.hasBias = info.numInputs() > 2 && info.inPresent[2];
  if (r.hasBias) r.biasScalar = kind(2, "B");
  return r;
}

// The reference's order, in float: mean, then the mean square deviation.
void cpuRow(const LayerRows& g, int64_t row, const TaskBuffers& b) {
  const float* x = b.inputs[0] + row * g.d;
  float* y = b.outputs[0] + row * g.d;
  float sum = 0;
  for (int64_t i = 0; i < g.d; ++i) sum += x[i];
  const float m = sum / static_cast<float>(g.d);
  float sq = 0;
  for (int64_t i = 0; i < g.d; ++i) sq += (x[i] - m) * (x[i] - m);
  const float inv = 1.0f / std::sqrt(sq / static_cast<float>(g.d) + g.eps);
  for (int64_t i = 0; i < g.d; ++i) {
    const float s = b.inputs[1][g.scaleScalar ? 0 : i];
    const float bias = g.hasBias ? b.inputs[2][g.biasScalar ? 0 : i] : 0.0f;
    y[i] = (x[i] - m) * inv * s + bias;
  }
}

// y[i] for the row at p / q, element index `i`.
std::string writeElement(const LayerRows& g, const std::string& i) {
  const std::string s = g.scaleScalar ? "in1[0]" : "in1[" + i + "]";
  const std::string b = !g.hasBias ? "0.0f" : g.biasScalar ? "in2[0]" : "in2[" + i + "]";
  return "q[" + i + "] = (p[" + i + "] - m) * inv * " + s + " + " + b + ";";
}

}  // namespace

std::vector<RKernel> layerNormKernels(const NodeInfo& info) {
  const LayerRows g = rowsOf(info);
  if (g.rows == 0 || g.d == 0) throw ops::OpError("has no elements to normalise");
  const double elems = static_cast<double>(g.rows * g.d);
  const std::string idx = indexType(g.rows * g.d + 1024);
  auto n = [](int64_t v) { return std::to_string(v); };
  const std::string consts = "  const int D = " + n(g.d) + ";\n  const float eps = " + cudaFloatLiteral(g.eps) + ";\n";
  const double paramBytes = 4.0 * static_cast<double>((g.scaleScalar ? 1 : g.d) + (!g.hasBias ? 0 : g.biasScalar ? 1 : g.d));
  std::vector<RKernel> out;

  // One row per rTask: block reductions of the sum and the squared deviations.
  {
    const int threads = powerOfTwoThreads(g.d, 32, 256);
    const std::string t = n(threads);
    RKernel k;
    k.name = "layernorm_block";
    k.family = "layernorm";
    k.params = {{"threads", threads}, {"row", g.d}};
    k.numRTasks = g.rows;
    k.block = Dim3{threads, 1, 1};
    k.sharedBytes = 4 * threads;
    k.flops = 8 * elems;
    k.bytes = 8 * elems + paramBytes * static_cast<double>(g.rows);
    k.l2Bytes = paramBytes * static_cast<double>(g.rows - 1);  // every row reads Scale and B again
    k.cudaFunction = info.functionName(k.name);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs()) + consts;
    s += "  const float* p = in0 + (" + idx + ")rtask_id * D;\n  float* q = out0 + (" + idx + ")rtask_id * D;\n";
    s += "  const bool active = tid < " + t + ";\n";
    s += "  float sum = 0.0f;\n  if (active) for (int i = tid; i < D; i += " + t + ") sum += p[i];\n";
    int syncs = 0;
    s += cudaBlockReduce("sum", "(a + b)", threads, syncs);
    s += "  const float m = sum / (float)D;\n";
    s += "  float sq = 0.0f;\n  if (active) for (int i = tid; i < D; i += " + t + ") sq += (p[i] - m) * (p[i] - m);\n";
    s += cudaBlockReduce("sq", "(a + b)", threads, syncs);
    s += "  const float inv = 1.0f / sqrtf(sq / (float)D + eps);\n";
    s += "  if (active) for (int i = tid; i < D; i += " + t + ") " + writeElement(g, "i") + "\n}\n";
    k.syncCount = syncs;
    k.cudaSource = s;
    k.cpu = [g](int64_t task, const TaskBuffers& b, float*) { cpuRow(g, task, b); };
    out.push_back(std::move(k));
  }
  // Many rows per rTask, one thread per row.
  {
    const int threads = powerOfTwoThreads(g.rows, 32, 128);
    RKernel k;
    k.name = "layernorm_rows";
    k.family = "layernorm";
    k.params = {{"rows_per_rtask", threads}, {"row", g.d}};
    k.numRTasks = divUp(g.rows, threads);
    k.block = Dim3{threads, 1, 1};
    k.flops = 8 * elems;
    k.bytes = 8 * elems + paramBytes * static_cast<double>(g.rows);
    k.l2Bytes = paramBytes * static_cast<double>(g.rows - 1);
    k.cudaFunction = info.functionName(k.name);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs()) + "  (void)smem;\n" + consts;
    s += "  if (tid >= " + n(threads) + ") return;\n";
    s += "  const " + idx + " row = (" + idx + ")rtask_id * " + n(threads) + " + tid;\n";
    s += "  if (row >= " + n(g.rows) + ") return;\n";
    s += "  const float* p = in0 + row * D;\n  float* q = out0 + row * D;\n";
    s += "  float sum = 0.0f;\n  for (int i = 0; i < D; ++i) sum += p[i];\n  const float m = sum / (float)D;\n";
    s += "  float sq = 0.0f;\n  for (int i = 0; i < D; ++i) sq += (p[i] - m) * (p[i] - m);\n";
    s += "  const float inv = 1.0f / sqrtf(sq / (float)D + eps);\n";
    s += "  for (int i = 0; i < D; ++i) " + writeElement(g, "i") + "\n}\n";
    k.cudaSource = s;
    const int64_t per = threads;
    k.cpu = [g, per](int64_t task, const TaskBuffers& b, float*) {
      for (int64_t r = task * per; r < std::min(g.rows, (task + 1) * per); ++r) cpuRow(g, r, b);
    };
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

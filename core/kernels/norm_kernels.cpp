#include "core/kernels/norm_kernels.h"

#include <algorithm>
#include <cmath>

#include "core/kernels/cuda_library.h"

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

}  // namespace

std::vector<RKernel> layerNormKernels(const NodeInfo& info) {
  const LayerRows g = rowsOf(info);
  if (g.rows == 0 || g.d == 0) throw ops::OpError("has no elements to normalise");
  const double elems = static_cast<double>(g.rows * g.d);
  const std::string idx = indexType(g.rows * g.d + 1024);
  const double paramBytes = 4.0 * static_cast<double>((g.scaleScalar ? 1 : g.d) + (!g.hasBias ? 0 : g.biasScalar ? 1 : g.d));
  // The body is layer_norm.cuh's template; the rKernel's function instantiates it.
  auto instantiate = [&](RKernel& k, const std::string& body, const std::string& args, bool shared) {
    useCudaLibrary(k, kLayerNorm);
    std::vector<std::string> callArgs = {"rtask_id", "tid", "smem", cudaFloatLiteral(g.eps), "in0", "in1",
                                         g.hasBias ? "in2" : "(const float*)0", "out0"};
    if (!shared) callArgs.erase(callArgs.begin() + 2);
    k.cudaSource = cudaInstantiation(k.cudaFunction, info.numInputs(), info.numOutputs(),
                                     {body,
                                      {idx, std::to_string(g.d), boolArg(g.scaleScalar), boolArg(g.hasBias),
                                       boolArg(g.biasScalar), args},
                                      callArgs});
  };
  auto shell = [&](const std::string& name, std::map<std::string, int64_t> params, int64_t rtasks, int threads,
                   int64_t sharedBytes) {
    RKernel k = kernelShell(info, name, "layernorm", std::move(params), rtasks, threads, sharedBytes, 8 * elems,
                            8 * elems + paramBytes * static_cast<double>(g.rows));
    k.l2Bytes = paramBytes * static_cast<double>(g.rows - 1);  // every row reads Scale and B again
    return k;
  };
  std::vector<RKernel> out;

  // One row per rTask: block reductions of the sum and the squared deviations.
  {
    const int threads = powerOfTwoThreads(g.d, 32, 256);
    RKernel k = shell("layernorm_block", {{"threads", threads}, {"row", g.d}}, g.rows, threads, 4 * threads);
    instantiate(k, "rammer_layernorm_block", std::to_string(threads), true);
    k.syncCount = 2 * segmentReduceSyncs(threads);
    k.written = rowsPerRTask(1, g.rows, g.d);
    out.push_back(std::move(k));
  }
  // Many rows per rTask, one thread per row.
  {
    const int threads = powerOfTwoThreads(g.rows, 32, 128);
    RKernel k = shell("layernorm_rows", {{"rows_per_rtask", threads}, {"row", g.d}}, divUp(g.rows, threads), threads, 0);
    instantiate(k, "rammer_layernorm_rows", std::to_string(threads) + ", " + std::to_string(g.rows) + "LL", false);
    const int64_t per = threads;
    k.written = rowsPerRTask(per, g.rows, g.d);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

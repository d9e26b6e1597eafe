#include "core/kernels/attention_kernels.h"

#include <algorithm>
#include <cmath>

#include "core/kernels/cuda_library.h"
#include "core/ops/nn/attention_op.h"

namespace rammer::kernels {

namespace {

constexpr int kKeyTile = 32;
constexpr int64_t kMaxHeadDim = ops::kAttentionMaxHeadDim;

// attention.cuh's RammerMaskRows for the mask's strides: rows maskStride[r]
// apart, the batch dims (innermost first) broadcast by theirs.
std::string maskRows(const ops::AttentionShape& s) {
  return "RammerMaskRows<" + llArg(s.maskStride[s.batch.size()]) + ", " + boxArg(s.batch, s.maskStride) + ">";
}

RKernel flashKernel(const NodeInfo& info, const ops::AttentionShape& s, float scale, int rows) {
  const int64_t blocksPerBatch = divUp(s.sq, rows);
  const int64_t tiles = divUp(s.sk, kKeyTile);
  auto n = [](int64_t v) { return std::to_string(v); };
  const std::string idx = indexType(std::max({s.batches() * s.sq * s.d, s.batches() * s.d * s.sk, s.batches() * s.sk * s.dv,
                                              s.batches() * s.sq * s.dv, s.batches() * s.sq * s.sk}) +
                                    1024);
  RKernel k;
  k.name = "attention_flash_r" + n(rows);
  k.family = "attention";
  k.params = {{"rows_per_rtask", rows}, {"key_tile", kKeyTile}, {"head_dim", s.d}, {"keys", s.sk}};
  k.numRTasks = s.batches() * blocksPerBatch;
  k.block = Dim3{rows, 1, 1};
  k.sharedBytes = 4 * kKeyTile * (s.d + s.dv);
  k.syncCount = static_cast<int>(2 * tiles);
  k.regsEstimate = static_cast<int>(std::min<int64_t>(255, 32 + s.d + s.dv));
  const double b = static_cast<double>(s.batches());
  k.flops = b * static_cast<double>(s.sq * s.sk) * (2.0 * static_cast<double>(s.d + s.dv) + 5.0);
  // Q read and O written once; K and V once per block of rows, the re-reads
  // from L2; the mask once per score.
  const double kv = 4.0 * b * static_cast<double>(s.sk * (s.d + s.dv));
  const double maskBytes = s.hasMask() ? 4.0 * b * static_cast<double>(s.sq * s.sk) : 0.0;
  k.bytes = 4.0 * b * static_cast<double>(s.sq * (s.d + s.dv)) + kv * static_cast<double>(blocksPerBatch) + maskBytes;
  k.l2Bytes = kv * static_cast<double>(blocksPerBatch - 1);
  k.cudaFunction = info.functionName(k.name);

  // The body is attention.cuh's template; this instantiates it.
  useCudaLibrary(k, kAttention);
  const int64_t keyStride = s.hasMask() ? s.maskStride[s.batch.size() + 1] : 0;
  k.cudaSource = cudaInstantiation(
      k.cudaFunction, info.numInputs(), info.numOutputs(),
      {"rammer_attention_flash",
       {idx, n(s.d), n(s.dv), n(s.sq), n(s.sk), n(rows), n(kKeyTile), n(blocksPerBatch), boolArg(s.hasMask()),
        llArg(keyStride), s.hasMask() ? maskRows(s) : "RammerMaskRows<0LL, RammerBox<>>"},
       {"rtask_id", "tid", "smem", cudaFloatLiteral(scale), "in0", "in1", "in2", s.hasMask() ? "in3" : "(const float*)0",
        "out0"}});
  // rTask k: rows [first, first + rows) of batch k / blocksPerBatch, dv
  // contiguous elements each.
  k.written = [s, rows, blocksPerBatch](int64_t task, std::vector<WrittenRun>& runs) {
    const int64_t batch = task / blocksPerBatch, first = (task % blocksPerBatch) * rows;
    appendRows(runs, batch * s.sq + first, batch * s.sq + std::min(s.sq, first + rows), s.dv);
  };
  return k;
}

}  // namespace

std::vector<RKernel> attentionKernels(const NodeInfo& info) {
  const ir::Shape* mask = info.numInputs() > 3 && info.inPresent[3] ? &info.inShapes[3] : nullptr;
  const ops::AttentionShape s = ops::AttentionShape::of(info.inShapes.at(0), info.inShapes.at(1), info.inShapes.at(2), mask);
  if (s.batches() * s.sq == 0 || s.sk == 0) throw ops::OpError("has no queries or no keys");
  if (s.d > kMaxHeadDim || s.dv > kMaxHeadDim)
    throw ops::OpError("head dims " + std::to_string(s.d) + " and " + std::to_string(s.dv) + " exceed the " +
                       std::to_string(kMaxHeadDim) + " a thread keeps in registers");
  const float scale = info.node->attrs.getFloat("scale", 1.0f);
  return {flashKernel(info, s, scale, 64), flashKernel(info, s, scale, 32)};
}

}  // namespace rammer::kernels

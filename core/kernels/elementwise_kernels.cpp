#include "core/kernels/elementwise_kernels.h"

#include <algorithm>
#include <memory>

#include "core/ops/math/fused_expr.h"

namespace rammer::kernels {

namespace {

// Input k's element stride along each output dim (inputs right-aligned).
std::vector<int64_t> broadcastStrides(const ir::Shape& in, const ir::Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  const std::vector<int64_t> own = rowMajorStrides(in);
  const size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) st[lead + d] = in[d] == 1 ? 0 : own[d];
  return st;
}

}  // namespace

std::vector<RKernel> elementwiseKernels(const NodeInfo& info) {
  const std::string text = info.node->attrs.getString("expr", "");
  if (text.empty()) throw ops::OpError("FusedElementwise needs an 'expr' attribute");
  auto expr = std::make_shared<const ops::FusedExpr>(ops::FusedExpr::parse(text));
  const ir::Shape out = info.outShapes.at(0);
  const size_t rank = out.size();
  const size_t n = info.numInputs();
  std::vector<std::vector<int64_t>> strides(n);
  for (size_t k = 0; k < n; ++k) {
    if (!info.inPresent[k]) throw ops::OpError("FusedElementwise input " + std::to_string(k) + " is omitted");
    if (info.inShapes[k].size() > rank) throw ops::OpError("an input has a higher rank than the output");
    strides[k] = broadcastStrides(info.inShapes[k], out);
  }
  const int64_t total = ir::numElements(out);

  ElementKernelSpec spec;
  spec.family = "elementwise";
  spec.total = total;
  spec.flops = static_cast<double>(total) * expr->numOperations();
  double bytes = static_cast<double>(total) * 4;
  for (size_t k = 0; k < n; ++k) bytes += static_cast<double>(ir::numElements(info.inShapes[k])) * 4;
  spec.bytes = bytes;
  const std::vector<ir::Shape> inShapes = info.inShapes;
  spec.body = [=](const std::string& idx, const std::string&) {
    // Coordinates only when some input is neither the full shape nor a scalar.
    std::vector<std::string> reads(n);
    bool needCoords = false;
    for (size_t k = 0; k < n; ++k) {
      const int64_t numel = ir::numElements(inShapes[k]);
      if (numel == total) reads[k] = "in" + std::to_string(k) + "[i]";
      else if (numel == 1) reads[k] = "in" + std::to_string(k) + "[0]";
      else needCoords = true;
    }
    std::string s;
    if (needCoords) {
      // Only the dims some strided input walks get a coordinate.
      std::vector<bool> used(rank, false);
      for (size_t k = 0; k < n; ++k)
        for (size_t d = 0; d < rank && reads[k].empty(); ++d) used[d] = used[d] || strides[k][d] != 0;
      s += "    " + idx + " r = i;\n";
      for (size_t d = rank; d-- > 0;) {
        if (used[d]) s += "    const " + idx + " c" + std::to_string(d) + " = r % " + std::to_string(out[d]) + ";\n";
        if (d > 0) s += "    r /= " + std::to_string(out[d]) + ";\n";
      }
      s += "    (void)r;\n";
      for (size_t k = 0; k < n; ++k) {
        if (!reads[k].empty()) continue;
        std::string off;
        for (size_t d = 0; d < rank; ++d)
          if (strides[k][d] != 0)
            off += (off.empty() ? "" : " + ") + std::string("c") + std::to_string(d) + " * " + std::to_string(strides[k][d]);
        reads[k] = "in" + std::to_string(k) + "[" + (off.empty() ? "0" : off) + "]";
      }
    }
    return s + expr->toCuda(reads, "out0[i]", "    ");
  };
  spec.cpu = [=](int64_t begin, int64_t end, const TaskBuffers& b) {
    // Runs along the innermost dim share one stride per input.
    std::vector<const float*> at(n);
    std::vector<int64_t> inner(n);
    for (size_t k = 0; k < n; ++k) inner[k] = rank ? strides[k][rank - 1] : 0;
    const int64_t last = rank ? out[rank - 1] : 1;
    std::vector<int64_t> coord(rank);
    for (int64_t pos = begin; pos < end;) {
      int64_t r = pos;
      for (size_t d = rank; d-- > 0;) {
        coord[d] = r % out[d];
        r /= out[d];
      }
      for (size_t k = 0; k < n; ++k) {
        int64_t off = 0;
        for (size_t d = 0; d < rank; ++d) off += coord[d] * strides[k][d];
        at[k] = b.inputs[k] + off;
      }
      const int64_t len = std::min(end - pos, last - (rank ? coord[rank - 1] : 0));
      expr->evalRow(at.data(), inner.data(), b.outputs[0] + pos, len);
      pos += len;
    }
  };
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

#include "core/kernels/broadcast_reads.h"

#include <algorithm>

#include "core/kernels/kernel_source.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

BroadcastReads::BroadcastReads(const std::vector<ir::Shape>& ins, const ir::Shape& o) : out(o), inputs(ins) {
  for (const ir::Shape& in : inputs) {
    if (in.size() > out.size()) throw ops::OpError("an input has a higher rank than the output");
    std::vector<int64_t> st(out.size(), 0);
    const std::vector<int64_t> own = rowMajorStrides(in);
    const size_t lead = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d) st[lead + d] = in[d] == 1 ? 0 : own[d];
    strides.push_back(std::move(st));
  }
}

std::string BroadcastReads::cudaOffsets(const std::string& idx, std::vector<std::string>& offsets) const {
  const size_t rank = out.size(), n = inputs.size();
  const int64_t total = ir::numElements(out);
  // Coordinates only when some input is neither the full shape nor a scalar.
  offsets.assign(n, "");
  bool needCoords = false;
  for (size_t k = 0; k < n; ++k) {
    const int64_t numel = ir::numElements(inputs[k]);
    if (numel == total)
      offsets[k] = "i";
    else if (numel == 1)
      offsets[k] = "0";
    else
      needCoords = true;
  }
  if (!needCoords) return "";
  // Only the dims some strided input walks get a coordinate.
  std::vector<bool> used(rank, false);
  for (size_t k = 0; k < n; ++k)
    for (size_t d = 0; d < rank && offsets[k].empty(); ++d) used[d] = used[d] || strides[k][d] != 0;
  std::string s = "    " + idx + " r = i;\n";
  for (size_t d = rank; d-- > 0;) {
    if (used[d]) s += "    const " + idx + " c" + std::to_string(d) + " = r % " + std::to_string(out[d]) + ";\n";
    if (d > 0) s += "    r /= " + std::to_string(out[d]) + ";\n";
  }
  s += "    (void)r;\n";
  for (size_t k = 0; k < n; ++k) {
    if (!offsets[k].empty()) continue;
    std::string off;
    for (size_t d = 0; d < rank; ++d)
      if (strides[k][d] != 0)
        off +=
            (off.empty() ? "" : " + ") + std::string("c") + std::to_string(d) + " * " + std::to_string(strides[k][d]);
    offsets[k] = off.empty() ? "0" : off;
  }
  return s;
}

void BroadcastReads::forEachRun(int64_t begin, int64_t end, const Run& run) const {
  const size_t rank = out.size(), n = inputs.size();
  std::vector<int64_t> at(n), inner(n), coord(rank);
  for (size_t k = 0; k < n; ++k) inner[k] = rank ? strides[k][rank - 1] : 0;
  const int64_t last = rank ? out[rank - 1] : 1;
  for (int64_t pos = begin; pos < end;) {
    int64_t r = pos;
    for (size_t d = rank; d-- > 0;) {
      coord[d] = r % out[d];
      r /= out[d];
    }
    for (size_t k = 0; k < n; ++k) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) off += coord[d] * strides[k][d];
      at[k] = off;
    }
    const int64_t len = std::min(end - pos, last - (rank ? coord[rank - 1] : 0));
    run(at.data(), inner.data(), pos, len);
    pos += len;
  }
}

}  // namespace rammer::kernels

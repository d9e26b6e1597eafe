#include "core/ops/broadcast.h"

#include <algorithm>

namespace rammer::ops {

ir::Shape broadcastShapes(const ir::Shape& a, const ir::Shape& b) {
  const size_t r = std::max(a.size(), b.size());
  ir::Shape out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    // Right-aligned: missing leading dims act as 1.
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    int64_t d;
    if (da == 1) d = db;
    else if (db == 1) d = da;
    else if (da < 0) d = db;  // unknown must be 1 or db
    else if (db < 0) d = da;
    else if (da == db) d = da;
    else
      throw OpError("cannot broadcast shapes " + ir::shapeToString(a) + " and " + ir::shapeToString(b) +
                    " (dims " + std::to_string(da) + " and " + std::to_string(db) + " differ)");
    out[i] = d;
  }
  return out;
}

ir::Shape broadcastShapes(std::span<const ir::Shape> shapes) {
  ir::Shape out;
  for (const ir::Shape& s : shapes) out = broadcastShapes(out, s);
  return out;
}

ir::TensorType broadcastTypes(std::span<const ir::TensorType> types, ir::DType resultType) {
  ir::TensorType out{resultType, {}, true};
  // Known shapes are still checked against each other when another rank is unknown.
  for (const ir::TensorType& t : types) {
    if (t.rankKnown) out.shape = broadcastShapes(out.shape, t.shape);
    else out.rankKnown = false;
  }
  if (!out.rankKnown) out.shape.clear();
  return out;
}

void checkUnidirectional(const ir::Shape& from, const ir::Shape& to, const char* what) {
  bool ok = from.size() <= to.size();
  for (size_t i = 0; ok && i < from.size(); ++i) {
    const int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    ok = f == 1 || f < 0 || t < 0 || f == t;
  }
  if (!ok)
    throw OpError(std::string(what) + " of shape " + ir::shapeToString(from) + " does not broadcast to shape " +
                  ir::shapeToString(to));
}

BroadcastPlan::BroadcastPlan(std::span<const ir::Shape> inputs) { build(inputs); }

BroadcastPlan::BroadcastPlan(const ir::Shape& a, const ir::Shape& b) {
  const ir::Shape both[2] = {a, b};
  build(both);
}

void BroadcastPlan::build(std::span<const ir::Shape> inputs) {
  for (const ir::Shape& s : inputs)
    if (!ir::isFullyKnown(s)) throw OpError("cannot broadcast shape " + ir::shapeToString(s) + " with unknown dims");
  out_ = broadcastShapes(inputs);
  numel_ = ir::numElements(out_);
  numInputs_ = inputs.size();
  const size_t r = out_.size();

  // Element strides of each input against the full output rank; 0 where the
  // input is broadcast (size-1 or missing dim).
  std::vector<int64_t> full(r * numInputs_, 0);
  for (size_t k = 0; k < numInputs_; ++k) {
    const ir::Shape& s = inputs[k];
    int64_t stride = 1;
    for (size_t j = 0; j < s.size(); ++j) {
      const size_t d = r - 1 - j;  // output dim of the input's j-th dim from the right
      const int64_t extent = s[s.size() - 1 - j];
      full[d * numInputs_ + k] = extent == 1 ? 0 : stride;
      stride *= extent;
    }
  }

  // Collapse from the innermost dim outwards: drop extent-1 dims, merge a
  // dim into the group inside it when every input continues linearly.
  std::vector<int64_t> dims;     // innermost first while building
  std::vector<int64_t> strides;  // same order, numInputs_ per dim
  for (size_t d = r; d-- > 0;) {
    if (out_[d] == 1) continue;
    const int64_t* s = &full[d * numInputs_];
    bool merge = !dims.empty();
    if (merge) {
      const int64_t* g = &strides[(dims.size() - 1) * numInputs_];
      for (size_t k = 0; k < numInputs_ && merge; ++k) merge = s[k] == g[k] * dims.back();
    }
    if (merge) {
      dims.back() *= out_[d];
    } else {
      dims.push_back(out_[d]);
      strides.insert(strides.end(), s, s + numInputs_);
    }
  }
  if (dims.empty()) {  // a scalar (or all-ones) output: one run of one element
    dims.push_back(1);
    strides.assign(numInputs_, 0);
  }
  // Store outermost first.
  const size_t n = dims.size();
  dims_.assign(dims.rbegin(), dims.rend());
  strides_.resize(strides.size());
  for (size_t i = 0; i < n; ++i)
    std::copy_n(&strides[(n - 1 - i) * numInputs_], numInputs_, &strides_[i * numInputs_]);
}

}  // namespace rammer::ops

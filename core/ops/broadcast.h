#pragma once
// Numpy-style (ONNX "multidirectional") broadcasting: shape inference that
// tolerates unknown dims, and an iteration plan that walks broadcast inputs
// in long contiguous runs so typed kernels stay plain loops.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/shape.h"
#include "core/ir/tensor.h"
#include "core/ops/op_context.h"

namespace rammer::ops {

// Broadcast result of two shapes, right-aligned. An unknown dim against 1 or
// another unknown dim stays unknown; against a known extent n != 1 it is n
// (it can only be 1 or n). OpError naming both shapes when known dims clash.
ir::Shape broadcastShapes(const ir::Shape& a, const ir::Shape& b);
ir::Shape broadcastShapes(std::span<const ir::Shape> shapes);
// The same over types: rankKnown is false when any input rank is unknown.
ir::TensorType broadcastTypes(std::span<const ir::TensorType> types, ir::DType resultType);

// OpError unless `from` broadcasts to exactly `to` (ONNX "unidirectional"
// broadcasting, e.g. PRelu's slope against X). Unknown dims are accepted.
void checkUnidirectional(const ir::Shape& from, const ir::Shape& to, const char* what);

// Iteration plan over fully known input shapes. Output dims of extent 1 are
// dropped and neighbouring dims that every input walks the same way are
// merged, so same-shape and scalar operands become a single run.
class BroadcastPlan {
 public:
  explicit BroadcastPlan(std::span<const ir::Shape> inputs);
  BroadcastPlan(const ir::Shape& a, const ir::Shape& b);

  const ir::Shape& outShape() const { return out_; }
  int64_t numel() const { return numel_; }
  size_t numInputs() const { return numInputs_; }
  // Per-element step of input k inside a run: 0 (broadcast) or 1.
  int64_t innerStride(size_t k) const { return strides_[(dims_.size() - 1) * numInputs_ + k]; }

  // Calls f(outOffset, inOffsets, n) for each run of n consecutive output
  // elements; inOffsets[k] is where input k starts and it advances by
  // innerStride(k) per element.
  template <class F>
  void forEachRun(F&& f) const {
    if (numel_ == 0) return;
    const size_t r = dims_.size();
    const int64_t inner = dims_[r - 1];
    std::vector<int64_t> idx(r, 0), off(numInputs_, 0);
    for (int64_t o = 0; o < numel_; o += inner) {
      f(o, static_cast<const int64_t*>(off.data()), inner);
      for (size_t d = r - 1; d-- > 0;) {
        const int64_t* s = &strides_[d * numInputs_];
        if (++idx[d] < dims_[d]) {
          for (size_t k = 0; k < numInputs_; ++k) off[k] += s[k];
          break;
        }
        for (size_t k = 0; k < numInputs_; ++k) off[k] -= s[k] * (dims_[d] - 1);
        idx[d] = 0;
      }
    }
  }

 private:
  void build(std::span<const ir::Shape> inputs);

  ir::Shape out_;
  int64_t numel_ = 0;
  size_t numInputs_ = 0;
  std::vector<int64_t> dims_;     // collapsed extents, outermost first (never empty)
  std::vector<int64_t> strides_;  // [dim * numInputs + input], in elements
};

// out[i] = op(a[.], b[.]) over a plan of two inputs. The stride pairs are
// specialised so the common cases compile to simple vectorisable loops.
template <class A, class B, class R, class Op>
void broadcastBinary(const BroadcastPlan& plan, const A* a, const B* b, R* out, Op op) {
  const int64_t sa = plan.innerStride(0), sb = plan.innerStride(1);
  plan.forEachRun([&](int64_t o, const int64_t* off, int64_t n) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    R* po = out + o;
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i], pb[i]);
    } else if (sa == 1) {
      const B vb = *pb;
      for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i], vb);
    } else if (sb == 1) {
      const A va = *pa;
      for (int64_t i = 0; i < n; ++i) po[i] = op(va, pb[i]);
    } else {
      const R v = op(*pa, *pb);
      for (int64_t i = 0; i < n; ++i) po[i] = v;
    }
  });
}

// out[i] = op(a[.], b[.], c[.]) over a plan of three inputs (Where, Clip).
template <class A, class B, class C, class R, class Op>
void broadcastTernary(const BroadcastPlan& plan, const A* a, const B* b, const C* c, R* out, Op op) {
  const int64_t sa = plan.innerStride(0), sb = plan.innerStride(1), sc = plan.innerStride(2);
  plan.forEachRun([&](int64_t o, const int64_t* off, int64_t n) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    const C* pc = c + off[2];
    R* po = out + o;
    for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i * sa], pb[i * sb], pc[i * sc]);
  });
}

// Calls f(T{}) with T the C++ type of `t` among float32, float64, int32,
// int64 (and bool when WithBool); OpError naming `op` otherwise. Keeps the
// typed kernels of one op in one template.
template <bool WithBool = false, class F>
decltype(auto) dispatchNumeric(ir::DType t, const char* op, F&& f) {
  switch (t) {
    case ir::DType::Float32: return f(float{});
    case ir::DType::Float64: return f(double{});
    case ir::DType::Int32: return f(int32_t{});
    case ir::DType::Int64: return f(int64_t{});
    case ir::DType::Bool:
      if constexpr (WithBool) return f(bool{});
      break;
    default: break;
  }
  throw OpError(std::string(op) + " does not support element type " + std::string(ir::dtypeName(t)));
}

}  // namespace rammer::ops

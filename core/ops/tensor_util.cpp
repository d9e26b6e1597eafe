#include "core/ops/tensor_util.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace rammer::ops::tensor {

namespace {

// Refuse outputs past this many bytes: a malformed shape value must give an
// error, not an allocation failure (or a sanitizer abort) deep in the executor.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 36;

// Copies elements src[index[i]] (or the fill element for index -1) into dst,
// `E` bytes each; memcpy keeps it free of aliasing and alignment questions.
template <size_t E>
void copyIndexed(const std::byte* src, std::byte* dst, std::span<const int64_t> index, const std::byte* fill) {
  for (size_t i = 0; i < index.size(); ++i) {
    const std::byte* from = index[i] < 0 ? fill : src + static_cast<size_t>(index[i]) * E;
    std::memcpy(dst + i * E, from, E);
  }
}

}  // namespace

int64_t checkedNumel(const OpContext& ctx, const ir::Shape& shape, ir::DType dtype) {
  const int64_t elemBytes = std::max<int64_t>(1, static_cast<int64_t>(ir::dtypeSize(dtype)));
  int64_t n = 1;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) ctx.fail("output shape " + intsToString(shape) + " has a negative dimension");
    if (d == 0) zero = true;
  }
  if (zero) return 0;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxTensorBytes / elemBytes)
      ctx.fail("output shape " + intsToString(shape) + " is too large");
  }
  return n;
}

ir::Tensor makeTensor(const OpContext& ctx, ir::DType dtype, const ir::Shape& shape) {
  checkedNumel(ctx, shape, dtype);
  return ir::Tensor(dtype, shape);
}

std::vector<int64_t> stridesOf(const ir::Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

int64_t dimProduct(const ir::Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) {
    if (shape[i] < 0) return ir::kUnknownDim;
    p *= shape[i];
  }
  return p;
}

void copyElements(const ir::Tensor& src, int64_t srcIndex, ir::Tensor& dst, int64_t dstIndex, int64_t count) {
  if (count <= 0) return;
  if (src.dtype() == ir::DType::String) {
    const auto& s = src.strings();
    std::copy_n(s.begin() + srcIndex, count, dst.strings().begin() + dstIndex);
    return;
  }
  const size_t e = ir::dtypeSize(src.dtype());
  std::memcpy(dst.raw() + static_cast<size_t>(dstIndex) * e, src.raw() + static_cast<size_t>(srcIndex) * e,
              static_cast<size_t>(count) * e);
}

ir::Tensor gatherByAxes(const OpContext& ctx, const ir::Tensor& src, const ir::Shape& outShape,
                        const std::vector<std::vector<int64_t>>& offsets, const ir::Tensor* fill) {
  ir::Tensor out = makeTensor(ctx, src.dtype(), outShape);
  const int64_t n = out.numel();
  if (n == 0) return out;

  // Source index of every output element (-1: fill), walking the output in
  // row-major order with an odometer over the axes.
  std::vector<int64_t> index(static_cast<size_t>(n));
  const size_t r = outShape.size();
  if (r == 0) {
    index[0] = 0;
  } else {
    std::vector<int64_t> pos(r, 0);
    std::vector<int64_t> base(r + 1, 0);  // base[a]: offset of the axes before a
    auto combine = [](int64_t b, int64_t o) { return b < 0 || o < 0 ? -1 : b + o; };
    for (size_t a = 0; a < r; ++a) base[a + 1] = combine(base[a], offsets[a][0]);
    const auto& last = offsets[r - 1];
    const int64_t inner = outShape[r - 1];
    for (int64_t i = 0; i < n; i += inner) {
      const int64_t b = base[r - 1];
      for (int64_t k = 0; k < inner; ++k) index[static_cast<size_t>(i + k)] = combine(b, last[static_cast<size_t>(k)]);
      // Advance the odometer over axes 0..r-2.
      size_t a = r - 1;
      while (a-- > 0) {
        if (++pos[a] < outShape[a]) break;
        pos[a] = 0;
      }
      if (a == static_cast<size_t>(-1)) break;
      for (size_t j = a; j + 1 < r; ++j) base[j + 1] = combine(base[j], offsets[j][static_cast<size_t>(pos[j])]);
    }
  }

  const bool needFill = std::any_of(index.begin(), index.end(), [](int64_t v) { return v < 0; });
  if (needFill && (!fill || fill->numel() != 1 || fill->dtype() != src.dtype()))
    ctx.fail("internal: missing fill value");
  if (src.dtype() == ir::DType::String) {
    const auto& s = src.strings();
    auto& d = out.strings();
    for (size_t i = 0; i < index.size(); ++i) d[i] = index[i] < 0 ? fill->strings()[0] : s[static_cast<size_t>(index[i])];
    return out;
  }
  const std::byte* f = needFill ? fill->raw() : nullptr;
  switch (ir::dtypeSize(src.dtype())) {
    case 1: copyIndexed<1>(src.raw(), out.raw(), index, f); break;
    case 2: copyIndexed<2>(src.raw(), out.raw(), index, f); break;
    case 4: copyIndexed<4>(src.raw(), out.raw(), index, f); break;
    case 8: copyIndexed<8>(src.raw(), out.raw(), index, f); break;
    default: ctx.fail("unsupported element type " + std::string(ir::dtypeName(src.dtype())));
  }
  return out;
}

int64_t indexTableScratch(const OpContext&, std::span<const ir::TensorType> outputs) {
  if (outputs.empty() || !outputs[0].fullyKnown()) return -1;
  const ir::Shape& shape = outputs[0].shape;
  const int64_t n = ir::numElements(shape);
  if (n == 0) return 0;  // ops::computeOp does not compute an empty output
  int64_t words = n;
  for (int64_t d : shape)
    if (__builtin_add_overflow(words, d, &words)) return std::numeric_limits<int64_t>::max();
  return words > std::numeric_limits<int64_t>::max() / 8 ? std::numeric_limits<int64_t>::max() : 8 * words;
}

ir::Tensor transposeTensor(const OpContext& ctx, const ir::Tensor& src, std::span<const int64_t> perm) {
  const ir::Shape& in = src.shape();
  const std::vector<int64_t> strides = stridesOf(in);
  ir::Shape outShape(perm.size());
  std::vector<std::vector<int64_t>> offsets(perm.size());
  for (size_t a = 0; a < perm.size(); ++a) {
    const auto p = static_cast<size_t>(perm[a]);
    outShape[a] = in[p];
    offsets[a].resize(static_cast<size_t>(in[p]));
    for (int64_t k = 0; k < in[p]; ++k) offsets[a][static_cast<size_t>(k)] = k * strides[p];
  }
  return gatherByAxes(ctx, src, outShape, offsets, nullptr);
}

std::optional<std::vector<int64_t>> knownInts(const OpContext& ctx, size_t i, const std::string& what) {
  const ir::DType t = ctx.dtype(i);
  if (t != ir::DType::Int64 && t != ir::DType::Int32)
    ctx.fail(what + " must be int64 or int32, got " + std::string(ir::dtypeName(t)));
  const ir::TensorType& type = ctx.type(i);
  if (type.rankKnown && type.shape.size() > 1)
    ctx.fail(what + " must be 1-D, got shape " + ir::shapeToString(type.shape));
  const ir::Tensor* v = ctx.value(i);
  if (!v) return std::nullopt;
  if (v->rank() > 1) ctx.fail(what + " must be 1-D, got shape " + ir::shapeToString(v->shape()));
  return v->toInt64s();
}

std::vector<int64_t> requireInts(const OpContext& ctx, size_t i, const std::string& what) {
  auto v = knownInts(ctx, i, what);
  if (!v) ctx.fail(what + " (input " + std::to_string(i) + ") must be known");
  return *v;
}

std::optional<int64_t> knownLength(const OpContext& ctx, size_t i) {
  const ir::TensorType& t = ctx.type(i);
  if (!t.rankKnown) return std::nullopt;
  if (t.shape.empty()) return 1;
  if (t.shape.size() == 1 && t.shape[0] >= 0) return t.shape[0];
  return std::nullopt;
}

std::vector<int64_t> normalizeAxes(const OpContext& ctx, const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      ctx.fail("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    const int64_t n = a < 0 ? a + rank : a;
    if (std::find(out.begin(), out.end(), n) != out.end()) ctx.fail("axis " + std::to_string(a) + " is repeated");
    out.push_back(n);
  }
  return out;
}

OpDef defineOp(std::string type, OpCategory category, std::function<ir::TensorType(const OpContext&)> infer,
               ComputeFn compute) {
  OpDef d;
  d.type = std::move(type);
  d.category = category;
  d.infer = [infer = std::move(infer)](const OpContext& ctx) { return std::vector<ir::TensorType>{infer(ctx)}; };
  d.compute = std::move(compute);
  return d;
}

std::string intsToString(std::span<const int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace rammer::ops::tensor

#include "core/ir/tensor.h"

#include <cmath>
#include <cstring>

namespace rammer::ir {

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  if (dtype == DType::Undefined) throw std::invalid_argument("tensor of undefined type");
  numel_ = numElements(shape_);
  if (numel_ < 0) throw std::invalid_argument("tensor shape " + shapeToString(shape_) + " has unknown dims");
  // 2^40 elements is far beyond any memory here; refuse before allocating.
  if (numel_ > (int64_t{1} << 40)) throw std::invalid_argument("tensor shape " + shapeToString(shape_) + " is too large");
  if (dtype == DType::String)
    strings_.assign(static_cast<size_t>(numel_), std::string());
  else
    bytes_.assign(static_cast<size_t>(numel_) * dtypeSize(dtype), std::byte{0});
}

void Tensor::reshape(Shape shape) {
  if (numElements(shape) != numel_)
    throw std::invalid_argument("cannot reshape " + shapeToString(shape_) + " to " + shapeToString(shape));
  shape_ = std::move(shape);
}

void Tensor::check(DType want) const {
  if (want != dtype_)
    throw std::logic_error("tensor is " + std::string(dtypeName(dtype_)) + ", accessed as " +
                           std::string(dtypeName(want)));
}

double Tensor::getDouble(int64_t i) const {
  const std::byte* p = bytes_.data() + static_cast<size_t>(i) * dtypeSize(dtype_);
  auto load = [p]<class T>(T) { T v; std::memcpy(&v, p, sizeof(T)); return static_cast<double>(v); };
  switch (dtype_) {
    case DType::Float32: return load(float{});
    case DType::Float64: return load(double{});
    case DType::Int8: return load(int8_t{});
    case DType::UInt8: return load(uint8_t{});
    case DType::Int16: return load(int16_t{});
    case DType::UInt16: return load(uint16_t{});
    case DType::Int32: return load(int32_t{});
    case DType::UInt32: return load(uint32_t{});
    case DType::Int64: return load(int64_t{});
    case DType::UInt64: return load(uint64_t{});
    case DType::Bool: return load(uint8_t{}) != 0 ? 1.0 : 0.0;
    case DType::Float16: { uint16_t h; std::memcpy(&h, p, 2); return halfToFloat(h); }
    default: throw std::logic_error("getDouble on " + std::string(dtypeName(dtype_)));
  }
}

int64_t Tensor::getInt64(int64_t i) const {
  if (dtype_ == DType::Int64) return data<int64_t>()[i];
  if (dtype_ == DType::UInt64) return static_cast<int64_t>(data<uint64_t>()[i]);
  return static_cast<int64_t>(getDouble(i));
}

std::vector<double> Tensor::toDoubles() const {
  std::vector<double> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[i] = getDouble(i);
  return out;
}

std::vector<int64_t> Tensor::toInt64s() const {
  std::vector<int64_t> out(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) out[i] = getInt64(i);
  return out;
}

void Tensor::setDouble(int64_t i, double v) {
  std::byte* p = bytes_.data() + static_cast<size_t>(i) * dtypeSize(dtype_);
  auto store = [p]<class T>(T x) { std::memcpy(p, &x, sizeof(T)); };
  switch (dtype_) {
    case DType::Float32: store(static_cast<float>(v)); break;
    case DType::Float64: store(v); break;
    case DType::Int8: store(static_cast<int8_t>(v)); break;
    case DType::UInt8: store(static_cast<uint8_t>(v)); break;
    case DType::Int16: store(static_cast<int16_t>(v)); break;
    case DType::UInt16: store(static_cast<uint16_t>(v)); break;
    case DType::Int32: store(static_cast<int32_t>(v)); break;
    case DType::UInt32: store(static_cast<uint32_t>(v)); break;
    case DType::Int64: store(static_cast<int64_t>(v)); break;
    case DType::UInt64: store(static_cast<uint64_t>(v)); break;
    case DType::Bool: store(static_cast<uint8_t>(v != 0.0)); break;
    case DType::Float16: store(floatToHalf(static_cast<float>(v))); break;
    default: throw std::logic_error("setDouble on " + std::string(dtypeName(dtype_)));
  }
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ffu;
  float f;
  if (exp == 0) {
    f = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal
    return sign ? -f : f;
  }
  uint32_t bits = exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);  // inf / nan
  if (absx >= 0x477ff000u) return sign | 0x7c00u;                                        // overflow
  if (absx < 0x38800000u) {                                                               // subnormal
    float a;
    std::memcpy(&a, &absx, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));
  }
  uint32_t m = absx + 0xfff + ((absx >> 13) & 1);  // round to nearest even
  return sign | static_cast<uint16_t>((m - 0x38000000u) >> 13);
}

}  // namespace rammer::ir

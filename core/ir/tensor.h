#pragma once
// A dense, row-major tensor owning its bytes. Copies are deep (the reference
// executor moves tensors; the graph keeps constants by value).
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ir/dtype.h"
#include "core/ir/shape.h"

namespace rammer::ir {

template <class T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<float>() { return DType::Float32; }
template <> constexpr DType dtypeOf<double>() { return DType::Float64; }
template <> constexpr DType dtypeOf<int8_t>() { return DType::Int8; }
template <> constexpr DType dtypeOf<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtypeOf<int16_t>() { return DType::Int16; }
template <> constexpr DType dtypeOf<uint16_t>() { return DType::UInt16; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::Int32; }
template <> constexpr DType dtypeOf<uint32_t>() { return DType::UInt32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::Int64; }
template <> constexpr DType dtypeOf<uint64_t>() { return DType::UInt64; }
template <> constexpr DType dtypeOf<bool>() { return DType::Bool; }

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor (empty strings for DType::String). Throws
  // std::invalid_argument on unknown dims or an Undefined dtype.
  Tensor(DType dtype, Shape shape);

  template <class T>
  static Tensor fromVector(Shape shape, const std::vector<T>& values) {
    Tensor t(dtypeOf<T>(), std::move(shape));
    if (static_cast<size_t>(t.numel()) != values.size())
      throw std::invalid_argument("Tensor::fromVector: element count does not match shape");
    auto* dst = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) dst[i] = values[i];
    return t;
  }
  template <class T>
  static Tensor scalar(T v) { return fromVector<T>({}, {v}); }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  std::size_t byteSize() const { return bytes_.size(); }
  TensorType type() const { return TensorType{dtype_, shape_, true}; }
  bool empty() const { return dtype_ == DType::Undefined; }

  // Typed access; throws std::logic_error when T does not match the dtype.
  template <class T> T* data() { check(dtypeOf<T>()); return reinterpret_cast<T*>(bytes_.data()); }
  template <class T> const T* data() const { check(dtypeOf<T>()); return reinterpret_cast<const T*>(bytes_.data()); }
  template <class T> std::span<T> values() { return {data<T>(), static_cast<size_t>(numel_)}; }
  template <class T> std::span<const T> values() const { return {data<T>(), static_cast<size_t>(numel_)}; }

  std::byte* raw() { return bytes_.data(); }
  const std::byte* raw() const { return bytes_.data(); }

  // String tensors keep their elements here (numel() entries); their byte
  // buffer is empty.
  std::vector<std::string>& strings() { check(DType::String); return strings_; }
  const std::vector<std::string>& strings() const { check(DType::String); return strings_; }

  // Same bytes, new shape (element count must match).
  void reshape(Shape shape);

  // Element i converted to double / int64, whatever the dtype (slow path for
  // small tensors: shape values, comparisons, printing).
  double getDouble(int64_t i) const;
  int64_t getInt64(int64_t i) const;
  std::vector<double> toDoubles() const;
  std::vector<int64_t> toInt64s() const;
  // Element i set from a double, converted to the dtype.
  void setDouble(int64_t i, double v);

 private:
  void check(DType want) const;

  DType dtype_ = DType::Undefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::vector<std::byte> bytes_;
  std::vector<std::string> strings_;
};

// float16 <-> float32 (IEEE half, round to nearest even).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

}  // namespace rammer::ir

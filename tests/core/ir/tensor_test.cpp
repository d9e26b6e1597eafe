// ir::Tensor and the float16 conversions (expected bit patterns from numpy's
// float32 -> float16 cast).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/ir/tensor.h"

namespace rammer::ir {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Tensor, ZeroFilledOnConstruction) {
  Tensor t(DType::Int32, {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.byteSize(), 24u);
  EXPECT_EQ(t.rank(), 2);
  EXPECT_THAT(t.values<int32_t>(), ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_FALSE(t.empty());
  EXPECT_TRUE(Tensor().empty());
}

TEST(Tensor, StringsLiveOutsideTheByteBuffer) {
  Tensor t(DType::String, {3});
  EXPECT_EQ(t.byteSize(), 0u);
  EXPECT_THAT(t.strings(), ElementsAre("", "", ""));
  EXPECT_THROW(Tensor(DType::Float32, {1}).strings(), std::logic_error);
}

TEST(Tensor, InvalidConstruction) {
  EXPECT_THROW(Tensor(DType::Undefined, {1}), std::invalid_argument);
  EXPECT_THROW(Tensor(DType::Float32, {2, kUnknownDim}), std::invalid_argument);
  EXPECT_THROW(Tensor::fromVector<float>({2}, {1.f, 2.f, 3.f}), std::invalid_argument);
}

TEST(Tensor, TypedAccessChecksTheDtype) {
  auto t = Tensor::fromVector<float>({2}, {1.f, 2.f});
  EXPECT_EQ(t.data<float>()[1], 2.f);
  try {
    (void)t.data<int32_t>();
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("float32"));
    EXPECT_THAT(e.what(), HasSubstr("int32"));
  }
}

TEST(Tensor, ScalarAndReshape) {
  auto s = Tensor::scalar<int64_t>(42);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.getInt64(0), 42);
  auto t = Tensor::fromVector<int64_t>({2, 3}, {0, 1, 2, 3, 4, 5});
  t.reshape({3, 2});
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_THAT(t.values<int64_t>(), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THROW(t.reshape({4}), std::invalid_argument);
}

TEST(Tensor, CopiesAreDeep) {
  auto a = Tensor::fromVector<float>({1}, {1.f});
  Tensor b = a;
  b.data<float>()[0] = 5.f;
  EXPECT_EQ(a.values<float>()[0], 1.f);
}

TEST(Tensor, GetAndSetDoubleAcrossTypes) {
  const DType types[] = {DType::Float32, DType::Float64, DType::Int8,  DType::UInt8,  DType::Int16,  DType::UInt16,
                         DType::Int32,   DType::UInt32,  DType::Int64, DType::UInt64, DType::Float16};
  for (DType dt : types) {
    Tensor t(dt, {2});
    t.setDouble(0, 3.0);
    t.setDouble(1, 100.0);
    EXPECT_EQ(t.getDouble(0), 3.0) << dtypeName(dt);
    EXPECT_EQ(t.getInt64(1), 100) << dtypeName(dt);
  }
  Tensor i(DType::Int32, {1});
  i.setDouble(0, -7.9);  // truncates like a C cast
  EXPECT_EQ(i.values<int32_t>()[0], -7);
  Tensor b(DType::Bool, {2});
  b.setDouble(0, 0.5);
  EXPECT_THAT(b.values<bool>(), ElementsAre(true, false));
  EXPECT_THAT(b.toDoubles(), ElementsAre(1.0, 0.0));
  Tensor u(DType::UInt64, {1});
  u.data<uint64_t>()[0] = uint64_t{1} << 40;
  EXPECT_EQ(u.getInt64(0), int64_t{1} << 40);
  Tensor big = Tensor::fromVector<int64_t>({2}, {(int64_t{1} << 62) + 1, -3});
  EXPECT_THAT(big.toInt64s(), ElementsAre((int64_t{1} << 62) + 1, -3));  // exact, not via double
}

TEST(Half, KnownBitPatterns) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);  // rounds down to the largest half
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);  // rounds up to infinity
  EXPECT_EQ(floatToHalf(0.1f), 0x2E66);
  EXPECT_EQ(floatToHalf(6.103515625e-05f), 0x0400);  // smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // halfway: ties to even (0)
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(floatToHalf(1e-8f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
}

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie -> even mantissa 0
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie -> even mantissa 2
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3C01);  // above the tie
}

TEST(Half, NaNStaysNaN) {
  const uint16_t h = floatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(h & 0x7C00, 0x7C00);
  EXPECT_NE(h & 0x03FF, 0);
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
}

TEST(Half, ToFloat) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0xC000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(halfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
}

TEST(Half, EveryNonNaNHalfRoundTrips) {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    if ((bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0) continue;  // NaN payloads may change
    ASSERT_EQ(floatToHalf(halfToFloat(bits)), bits) << std::hex << h;
  }
}

}  // namespace
}  // namespace rammer::ir

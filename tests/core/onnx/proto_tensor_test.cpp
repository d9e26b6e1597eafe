// TensorProto -> ir::Tensor for every storage field ONNX uses, and back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/onnx/proto_tensor.h"

namespace rammer::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using onnx::TensorProto;
using onnx_import::tensorFromProto;
using onnx_import::tensorToProto;

TensorProto proto(int32_t dtype, std::vector<int64_t> dims) {
  TensorProto p;
  p.set_name("t");
  p.set_data_type(dtype);
  for (int64_t d : dims) p.add_dims(d);
  return p;
}

ir::Tensor convert(TensorProto p) {
  auto r = tensorFromProto(p, {});
  EXPECT_TRUE(r.ok()) << r.errorText();
  return r.ok() ? std::move(r).value() : ir::Tensor{};
}

std::string failure(TensorProto p) {
  auto r = tensorFromProto(p, {});
  EXPECT_FALSE(r.ok());
  return r.errorText();
}

TEST(ProtoTensor, FloatData) {
  auto p = proto(TensorProto::FLOAT, {2, 2});
  for (float v : {1.f, -2.f, 0.5f, 8.f}) p.add_float_data(v);
  ir::Tensor t = convert(p);
  EXPECT_EQ(t.dtype(), ir::DType::Float32);
  EXPECT_EQ(t.shape(), (ir::Shape{2, 2}));
  EXPECT_THAT(t.values<float>(), ElementsAre(1.f, -2.f, 0.5f, 8.f));
}

TEST(ProtoTensor, DoubleData) {
  auto p = proto(TensorProto::DOUBLE, {2});
  p.add_double_data(1e300);
  p.add_double_data(-0.125);
  EXPECT_THAT(convert(p).values<double>(), ElementsAre(1e300, -0.125));
}

TEST(ProtoTensor, Int64Data) {
  auto p = proto(TensorProto::INT64, {3});
  for (int64_t v : {int64_t{-1}, int64_t{1} << 40, int64_t{7}}) p.add_int64_data(v);
  EXPECT_THAT(convert(p).values<int64_t>(), ElementsAre(-1, int64_t{1} << 40, 7));
}

TEST(ProtoTensor, Uint64DataHoldsUint32AndUint64) {
  auto p = proto(TensorProto::UINT64, {1});
  p.add_uint64_data(~uint64_t{0});
  EXPECT_THAT(convert(p).values<uint64_t>(), ElementsAre(~uint64_t{0}));
  auto q = proto(TensorProto::UINT32, {2});
  q.add_uint64_data(4000000000u);
  q.add_uint64_data(3);
  EXPECT_THAT(convert(q).values<uint32_t>(), ElementsAre(4000000000u, 3u));
}

TEST(ProtoTensor, Int32DataHoldsSmallIntegerTypes) {
  auto i32 = proto(TensorProto::INT32, {2});
  i32.add_int32_data(-70000);
  i32.add_int32_data(5);
  EXPECT_THAT(convert(i32).values<int32_t>(), ElementsAre(-70000, 5));
  auto i16 = proto(TensorProto::INT16, {1});
  i16.add_int32_data(-300);
  EXPECT_THAT(convert(i16).values<int16_t>(), ElementsAre(-300));
  auto i8 = proto(TensorProto::INT8, {1});
  i8.add_int32_data(-128);
  EXPECT_THAT(convert(i8).values<int8_t>(), ElementsAre(-128));
  auto u16 = proto(TensorProto::UINT16, {1});
  u16.add_int32_data(65535);
  EXPECT_THAT(convert(u16).values<uint16_t>(), ElementsAre(65535));
  auto u8 = proto(TensorProto::UINT8, {2});
  u8.add_int32_data(255);
  u8.add_int32_data(0);
  EXPECT_THAT(convert(u8).values<uint8_t>(), ElementsAre(255, 0));
}

TEST(ProtoTensor, BoolInInt32Data) {
  auto p = proto(TensorProto::BOOL, {3});
  for (int v : {1, 0, 1}) p.add_int32_data(v);
  ir::Tensor t = convert(p);
  EXPECT_EQ(t.dtype(), ir::DType::Bool);
  EXPECT_THAT(t.values<bool>(), ElementsAre(true, false, true));
}

TEST(ProtoTensor, Float16BitsInInt32Data) {
  auto p = proto(TensorProto::FLOAT16, {3});
  for (int bits : {0x3C00, 0xC000, 0x7BFF}) p.add_int32_data(bits);  // 1, -2, 65504
  ir::Tensor t = convert(p);
  EXPECT_EQ(t.dtype(), ir::DType::Float16);
  EXPECT_THAT(t.toDoubles(), ElementsAre(1.0, -2.0, 65504.0));
}

TEST(ProtoTensor, StringData) {
  auto p = proto(TensorProto::STRING, {2});
  p.add_string_data("hello");
  p.add_string_data(std::string("a\0b", 3));
  ir::Tensor t = convert(p);
  EXPECT_THAT(t.strings(), ElementsAre("hello", std::string("a\0b", 3)));
}

TEST(ProtoTensor, RawDataIsLittleEndian) {
  auto p = proto(TensorProto::INT32, {2});
  p.set_raw_data(std::string("\x01\x00\x00\x00\xfe\xff\xff\xff", 8));
  EXPECT_THAT(convert(p).values<int32_t>(), ElementsAre(1, -2));
  auto h = proto(TensorProto::FLOAT16, {1});
  h.set_raw_data(std::string("\x00\x3c", 2));
  EXPECT_EQ(convert(h).getDouble(0), 1.0);
}

TEST(ProtoTensor, RawDataIsConsumed) {
  auto p = proto(TensorProto::FLOAT, {1});
  p.set_raw_data(std::string("\x00\x00\x80\x3f", 4));
  auto r = tensorFromProto(p, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->values<float>()[0], 1.f);
  EXPECT_TRUE(p.raw_data().empty());
}

TEST(ProtoTensor, RawBoolBytesAreNormalised) {
  auto p = proto(TensorProto::BOOL, {3});
  p.set_raw_data(std::string("\x00\x01\x07", 3));  // 7 is not a valid bool object
  ir::Tensor t = convert(p);
  EXPECT_EQ(std::to_integer<int>(t.raw()[2]), 1);
  EXPECT_THAT(t.values<bool>(), ElementsAre(false, true, true));
}

TEST(ProtoTensor, ScalarAndEmpty) {
  auto s = proto(TensorProto::FLOAT, {});
  s.add_float_data(3.f);
  ir::Tensor t = convert(s);
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(t.numel(), 1);
  auto e = proto(TensorProto::FLOAT, {0, 3});
  EXPECT_EQ(convert(e).numel(), 0);
}

TEST(ProtoTensor, ElementCountMismatch) {
  auto p = proto(TensorProto::FLOAT, {3});
  p.add_float_data(1.f);
  EXPECT_THAT(failure(p), HasSubstr("tensor 't' has dims [3] (3 elements of float32) but its data holds 1 elements"));
}

TEST(ProtoTensor, DataInTheWrongFieldIsMissingData) {
  auto p = proto(TensorProto::FLOAT, {1});
  p.add_int64_data(1);
  EXPECT_THAT(failure(p), HasSubstr("but its data holds 0 elements"));
}

TEST(ProtoTensor, RawSizeMismatch) {
  auto p = proto(TensorProto::INT64, {2});
  p.set_raw_data(std::string(12, '\0'));
  EXPECT_THAT(failure(p), HasSubstr("tensor 't' has dims [2] (16 bytes of int64) but its raw_data holds 12 bytes"));
}

TEST(ProtoTensor, NegativeDims) {
  auto p = proto(TensorProto::FLOAT, {2, -1});
  EXPECT_THAT(failure(p), HasSubstr("tensor 't' has a negative dim"));
}

TEST(ProtoTensor, UnsupportedTypes) {
  EXPECT_THAT(failure(proto(TensorProto::BFLOAT16, {1})), HasSubstr("unsupported data type 16 (BFLOAT16)"));
  EXPECT_THAT(failure(proto(0, {1})), HasSubstr("unsupported data type 0 (UNDEFINED)"));
  EXPECT_THAT(failure(proto(99, {1})), HasSubstr("unsupported data type 99 (unknown)"));
}

TEST(ProtoTensor, UnnamedTensorUsesTheGivenName) {
  auto p = proto(TensorProto::FLOAT, {2});
  p.clear_name();
  auto r = tensorFromProto(p, {}, "node.value");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.errorText(), HasSubstr("tensor 'node.value'"));
}

TEST(ProtoTensor, ToProtoWritesRawData) {
  auto t = ir::Tensor::fromVector<int64_t>({2}, {5, -6});
  TensorProto p = tensorToProto(t, "v");
  EXPECT_EQ(p.name(), "v");
  EXPECT_EQ(p.data_type(), TensorProto::INT64);
  EXPECT_THAT(p.dims(), ElementsAre(2));
  ASSERT_EQ(p.raw_data().size(), 16u);
  EXPECT_EQ(p.raw_data().substr(0, 8), std::string("\x05\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(p.int64_data_size(), 0);
}

TEST(ProtoTensor, RoundTripEveryType) {
  const ir::DType types[] = {ir::DType::Float32, ir::DType::UInt8,  ir::DType::Int8,    ir::DType::UInt16,
                             ir::DType::Int16,   ir::DType::Int32,  ir::DType::Int64,   ir::DType::Bool,
                             ir::DType::Float16, ir::DType::Float64, ir::DType::UInt32, ir::DType::UInt64};
  for (ir::DType dt : types) {
    ir::Tensor t(dt, {2, 3});
    for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, static_cast<double>(i % 2 == 0 ? i : 1));
    TensorProto p = tensorToProto(t, "x");
    auto back = tensorFromProto(p, {});
    ASSERT_TRUE(back.ok()) << back.errorText();
    EXPECT_EQ(back->type(), t.type()) << ir::dtypeName(dt);
    EXPECT_EQ(back->toDoubles(), t.toDoubles()) << ir::dtypeName(dt);
  }
}

}  // namespace
}  // namespace rammer::test

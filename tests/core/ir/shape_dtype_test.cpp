// Shapes, dtypes and diagnostics formatting.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "core/ir/tensor.h"

#include "core/ir/diagnostic.h"
#include "core/ir/dtype.h"
#include "core/ir/shape.h"

namespace rammer::ir {
namespace {

TEST(Shape, NumElements) {
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({2, 3, 4}), 24);
  EXPECT_EQ(numElements({2, 0, 4}), 0);
  EXPECT_EQ(numElements({2, kUnknownDim}), kUnknownDim);
  EXPECT_TRUE(isFullyKnown({1, 2}));
  EXPECT_FALSE(isFullyKnown({kUnknownDim}));
}

TEST(Shape, Text) {
  EXPECT_EQ(shapeToString({}), "[]");
  EXPECT_EQ(shapeToString({1, kUnknownDim, 224}), "[1, ?, 224]");
  EXPECT_EQ(typeToString({DType::Int64, {3}, true}), "int64[3]");
  EXPECT_EQ(typeToString({DType::Float32, {}, false}), "float32[*]");
  EXPECT_TRUE((TensorType{DType::Float32, {2}, true}).fullyKnown());
  EXPECT_FALSE((TensorType{DType::Float32, {}, false}).fullyKnown());
}

TEST(DType, SizesAndNames) {
  EXPECT_EQ(dtypeSize(DType::Float32), 4u);
  EXPECT_EQ(dtypeSize(DType::Float16), 2u);
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  EXPECT_EQ(dtypeSize(DType::UInt64), 8u);
  EXPECT_EQ(dtypeSize(DType::String), 0u);
  EXPECT_EQ(dtypeName(DType::Float64), "float64");
  EXPECT_TRUE(isFloating(DType::Float16));
  EXPECT_FALSE(isFloating(DType::Int32));
  EXPECT_TRUE(isInteger(DType::UInt8));
  EXPECT_FALSE(isInteger(DType::Bool));
}

TEST(DType, FromOnnxNumbers) {
  EXPECT_EQ(dtypeFromOnnx(1), DType::Float32);
  EXPECT_EQ(dtypeFromOnnx(7), DType::Int64);
  EXPECT_EQ(dtypeFromOnnx(13), DType::UInt64);
  EXPECT_EQ(dtypeFromOnnx(14), std::nullopt);  // complex64
  EXPECT_EQ(dtypeFromOnnx(16), std::nullopt);  // bfloat16
  EXPECT_EQ(dtypeFromOnnx(-1), std::nullopt);
}

TEST(Diagnostic, Formatting) {
  EXPECT_EQ(formatDiagnostic(makeError("bad thing", "conv1", "m.onnx")), "m.onnx: node 'conv1': bad thing");
  EXPECT_EQ(formatDiagnostic(makeError("bad thing")), "bad thing");
  Diagnostic w{Severity::Warning, "hm", "f", ""};
  EXPECT_EQ(formatDiagnostic(w), "f: warning: hm");
  EXPECT_EQ(formatDiagnostics({makeError("a"), makeError("b")}), "a\nb");
}

TEST(Diagnostic, Result) {
  Result<int> ok(3);
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  EXPECT_EQ(ok.errorText(), "");
  Result<int> bad(makeError("nope", "", "x.onnx"));
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.errors().size(), 1u);
  EXPECT_EQ(bad.errorText(), "x.onnx: nope");
}

}  // namespace
}  // namespace rammer::ir

TEST(Shape, NumElementsSaturatesInsteadOfOverflowing) {
  using rammer::ir::numElements;
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(numElements({big, big}), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(numElements({big, big, 0}), 0);
  EXPECT_EQ(numElements({big, -1}), rammer::ir::kUnknownDim);
  EXPECT_THROW(rammer::ir::Tensor(rammer::ir::DType::Float32, {big, big}), std::invalid_argument);
}

// Run-time words (core/ir/words.h): which types have them, the conversion
// in and out, and the int64 values that do not fit.
#include "core/ir/words.h"

#include <gtest/gtest.h>

#include <limits>

namespace rammer::ir {
namespace {

TEST(Words, FloatAndTheIntegerTypesUpToInt64HaveWordsOthersNot) {
  EXPECT_EQ(wordKindOf(DType::Float32), WordKind::Float);
  for (DType t : {DType::Int32, DType::Int64, DType::Bool, DType::Int8, DType::UInt8, DType::Int16, DType::UInt16})
    EXPECT_EQ(wordKindOf(t), WordKind::Int) << dtypeName(t);
  for (DType t : {DType::Float64, DType::Float16, DType::UInt32, DType::UInt64, DType::String, DType::Undefined})
    EXPECT_FALSE(heldAsWords(t)) << dtypeName(t);
}

TEST(Words, IntegersAndBoolsRoundTripThroughTheirInt32Words) {
  const Tensor ids = Tensor::fromVector<int64_t>({4}, {0, -1, 2147483647, -2147483648LL});
  auto w = toWords(ids, 4, "ids");
  ASSERT_TRUE(w.ok()) << w.errorText();
  EXPECT_EQ(wordToInt((*w)[1]), -1);
  EXPECT_EQ(wordToInt((*w)[2]), std::numeric_limits<int32_t>::max());
  const Tensor back = fromWords(DType::Int64, {4}, *w);
  EXPECT_EQ(back.toInt64s(), ids.toInt64s());
  const Tensor mask = Tensor::fromVector<bool>({3}, {true, false, true});
  auto m = toWords(mask, 3, "mask");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(wordToInt((*m)[0]), 1);
  EXPECT_EQ(wordToInt((*m)[1]), 0);
  EXPECT_EQ(fromWords(DType::Bool, {3}, *m).toInt64s(), mask.toInt64s());
  // float32 words are the floats themselves.
  const Tensor f = Tensor::fromVector<float>({2}, {1.5f, -0.0f});
  auto fw = toWords(f, 2, "f");
  ASSERT_TRUE(fw.ok());
  EXPECT_EQ((*fw)[0], 1.5f);
  EXPECT_EQ(fromWords(DType::Undefined, {2}, *fw).dtype(), DType::Float32);
}

TEST(Words, AnInt64OutsideInt32AndATypeWithoutWordsAreRefusedByName) {
  auto big = toWords(Tensor::fromVector<int64_t>({2}, {1, int64_t{1} << 40}), 2, "input 'ids'");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.errorText().find("input 'ids' holds 1099511627776 at element 1"), std::string::npos) << big.errorText();
  auto dbl = toWords(Tensor::fromVector<double>({1}, {1.0}), 1, "weight 'w'");
  ASSERT_FALSE(dbl.ok());
  EXPECT_NE(dbl.errorText().find("weight 'w' is float64"), std::string::npos) << dbl.errorText();
  auto size = toWords(Tensor::fromVector<float>({2}, {1, 2}), 3, "x");
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.errorText().find("x has 2 elements, its buffer 3"), std::string::npos) << size.errorText();
}

}  // namespace
}  // namespace rammer::ir

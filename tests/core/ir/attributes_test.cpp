// ir::Attributes typed getters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/ir/attributes.h"

namespace rammer::ir {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Attributes sample() {
  Attributes a;
  a.set("axis", int64_t{-1});
  a.set("alpha", 0.5f);
  a.set("mode", std::string("constant"));
  a.set("pads", std::vector<int64_t>{1, 1, 0, 0});
  a.set("scales", std::vector<float>{2.f, 3.f});
  a.set("names", std::vector<std::string>{"a", "b"});
  a.set("value", Tensor::fromVector<int64_t>({2}, {4, 5}));
  return a;
}

TEST(Attributes, TypedGettersReturnStoredValues) {
  const Attributes a = sample();
  EXPECT_EQ(a.getInt("axis", 0), -1);
  EXPECT_EQ(a.getFloat("alpha", 0.f), 0.5f);
  EXPECT_EQ(a.getString("mode", ""), "constant");
  EXPECT_THAT(a.getInts("pads"), ElementsAre(1, 1, 0, 0));
  EXPECT_THAT(a.getFloats("scales"), ElementsAre(2.f, 3.f));
  EXPECT_THAT(a.getStrings("names"), ElementsAre("a", "b"));
  ASSERT_NE(a.getTensor("value"), nullptr);
  EXPECT_THAT(a.getTensor("value")->values<int64_t>(), ElementsAre(4, 5));
}

TEST(Attributes, DefaultsWhenAbsent) {
  const Attributes a;
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.getInt("axis", 7), 7);
  EXPECT_EQ(a.getFloat("alpha", 0.25f), 0.25f);
  EXPECT_EQ(a.getString("mode", "reflect"), "reflect");
  EXPECT_THAT(a.getInts("pads", {3}), ElementsAre(3));
  EXPECT_TRUE(a.getFloats("scales").empty());
  EXPECT_TRUE(a.getStrings("names").empty());
  EXPECT_EQ(a.getTensor("value"), nullptr);
  EXPECT_EQ(a.find("axis"), nullptr);
}

TEST(Attributes, WrongKindThrowsNamingTheAttribute) {
  const Attributes a = sample();
  try {
    a.getInt("mode", 0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'mode'"));
  }
  EXPECT_THROW(a.getInts("axis"), std::invalid_argument);
  EXPECT_THROW(a.getString("pads", ""), std::invalid_argument);
  EXPECT_THROW(a.getFloats("pads"), std::invalid_argument);
  EXPECT_THROW(a.getStrings("mode"), std::invalid_argument);
  EXPECT_THROW(a.getTensor("alpha"), std::invalid_argument);
  EXPECT_THROW(a.getFloat("mode", 0.f), std::invalid_argument);
}

TEST(Attributes, IntReadAsFloat) {
  Attributes a;
  a.set("epsilon", int64_t{2});  // some exporters write ints for float attributes
  EXPECT_EQ(a.getFloat("epsilon", 0.f), 2.f);
}

TEST(Attributes, SetOverwritesAndEraseRemoves) {
  Attributes a = sample();
  a.set("axis", int64_t{3});
  EXPECT_EQ(a.getInt("axis", 0), 3);
  a.erase("axis");
  EXPECT_FALSE(a.has("axis"));
  EXPECT_EQ(a.all().size(), 6u);
}

TEST(Attributes, ToString) {
  EXPECT_EQ(attrToString(AttrValue{int64_t{5}}), "5");
  EXPECT_EQ(attrToString(AttrValue{std::string("x")}), "\"x\"");
  EXPECT_EQ(attrToString(AttrValue{std::vector<int64_t>{1, 2}}), "[1, 2]");
  EXPECT_EQ(attrToString(AttrValue{Tensor(DType::Float32, {2, 2})}), "tensor float32[2, 2]");
  EXPECT_THAT(attrToString(AttrValue{std::vector<int64_t>(20, 0)}), HasSubstr("... (20)]"));
}

}  // namespace
}  // namespace rammer::ir

#include "viz/models/op_category_style.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace rammer::viz {
namespace {

TEST(OpCategoryStyle, EveryCategoryHasItsOwnColour) {
  // OpCategory is a dense enum ending with Other.
  const int count = static_cast<int>(ops::OpCategory::Other) + 1;
  ASSERT_EQ(static_cast<int>(allCategoryStyles().size()), count);
  std::set<uint32_t> fills;
  for (int c = 0; c < count; ++c) {
    const auto cat = static_cast<ops::OpCategory>(c);
    const CategoryStyle& s = styleFor(cat);
    EXPECT_EQ(s.category, cat) << ops::categoryName(cat);
    EXPECT_EQ(allCategoryStyles()[static_cast<size_t>(c)].category, cat);
    EXPECT_FALSE(s.label.empty());
    EXPECT_LE(s.fill, 0xFFFFFFu);
    fills.insert(s.fill);
  }
  EXPECT_EQ(static_cast<int>(fills.size()), count) << "two categories share a colour";
}

TEST(OpCategoryStyle, TextContrastsWithFill) {
  // WCAG relative luminance; white text needs a dark fill (ratio >= 4.5).
  auto lum = [](uint32_t c) {
    auto ch = [](double v) { v /= 255; return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch((c >> 16) & 0xFF) + 0.7152 * ch((c >> 8) & 0xFF) + 0.0722 * ch(c & 0xFF);
  };
  for (const CategoryStyle& s : allCategoryStyles()) {
    const double a = lum(s.fill), b = lum(s.text);
    const double ratio = (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05);
    EXPECT_GE(ratio, 4.5) << s.label;
  }
}

TEST(OpCategoryStyle, CategoryOfNodeComesFromTheRegistry) {
  ir::Node n;
  n.opType = "Conv";
  EXPECT_EQ(categoryOf(n), ops::OpCategory::Convolution);
  n.opType = "MaxPool";
  EXPECT_EQ(categoryOf(n), ops::OpCategory::Pooling);
  n.opType = "FusedElementwise";
  n.domain = ops::kRammerDomain;
  EXPECT_EQ(categoryOf(n), ops::OpCategory::Elementwise);
  n.opType = "NoSuchOp";
  EXPECT_EQ(categoryOf(n), ops::OpCategory::Other);
}

}  // namespace
}  // namespace rammer::viz

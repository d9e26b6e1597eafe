#include "viz/models/op_category_style.h"

#include <array>

namespace rammer::viz {

namespace {

using ops::OpCategory;

// Hues far enough apart that neighbouring boxes of different families are
// told apart at a glance; compute-heavy families get the saturated ones.
constexpr std::array<CategoryStyle, 11> kStyles = {{
    {OpCategory::Convolution, "Convolution", 0x2F5D8C, 0xFFFFFF},
    {OpCategory::MatMul, "MatMul / Gemm", 0x3E3A8F, 0xFFFFFF},
    {OpCategory::Elementwise, "Element-wise", 0x55702E, 0xFFFFFF},
    {OpCategory::Activation, "Activation", 0x8C2F2F, 0xFFFFFF},
    {OpCategory::Normalization, "Normalization", 0x2D7566, 0xFFFFFF},
    {OpCategory::Pooling, "Pooling", 0x2F6B3A, 0xFFFFFF},
    {OpCategory::Reduction, "Reduction", 0x8A5A1E, 0xFFFFFF},
    {OpCategory::DataMovement, "Data movement", 0x6B5148, 0xFFFFFF},
    {OpCategory::Recurrent, "Recurrent", 0x6A3D8C, 0xFFFFFF},
    {OpCategory::Constant, "Constant", 0x555555, 0xFFFFFF},
    {OpCategory::Other, "Other", 0x6E6E6E, 0xFFFFFF},
}};

}  // namespace

std::span<const CategoryStyle> allCategoryStyles() { return kStyles; }

const CategoryStyle& styleFor(ops::OpCategory category) {
  for (const CategoryStyle& s : kStyles)
    if (s.category == category) return s;
  return kStyles.back();
}

ops::OpCategory categoryOf(const ir::Node& node) {
  const ops::OpDef* def = ops::OpRegistry::builtin().find(node.domain, node.opType);
  return def ? def->category : ops::OpCategory::Other;
}

}  // namespace rammer::viz

#pragma once
// How each op category looks in the graph: one fill colour per
// ops::OpCategory (dark, so white text reads on it, in the spirit of
// Netron). Colours are 0xRRGGBB integers so this stays Qt-Gui-free; the
// widgets turn them into QColors.
#include <cstdint>
#include <span>
#include <string_view>

#include "core/ir/graph.h"
#include "core/ops/op_registry.h"

namespace rammer::viz {

struct CategoryStyle {
  ops::OpCategory category;
  std::string_view label;  // legend text
  uint32_t fill;           // 0xRRGGBB
  uint32_t text;           // 0xRRGGBB, readable on `fill`
};

// One entry per OpCategory, in enum order.
std::span<const CategoryStyle> allCategoryStyles();
const CategoryStyle& styleFor(ops::OpCategory category);

// The registry's category for the node's op; Other when the op is unknown.
ops::OpCategory categoryOf(const ir::Node& node);

// Graph inputs and outputs are drawn as light pills, not operators.
inline constexpr uint32_t kTerminalFill = 0xE6E6E6;
inline constexpr uint32_t kTerminalText = 0x202020;

}  // namespace rammer::viz

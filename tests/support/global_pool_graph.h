#pragma once
// A GlobalAveragePool over 7x7 planes ("gap") and a GlobalMaxPool over
// planes of 33 ("gmp": a warp and one lane more), and the pins that put
// both on one variant of global_pool.cuh: what the NVRTC and HIP compile
// tests build for each variant.
#include <stdexcept>
#include <string>

#include "core/schedule/constraints.h"
#include "tests/support/graph_builder.h"

namespace rammer::testing {

inline ir::Graph globalPoolGraph() {
  GraphBuilder b;
  b.output(b.op("GlobalAveragePool", "gap", {b.input("x", {2, 5, 7, 7})}));
  b.output(b.op("GlobalMaxPool", "gmp", {b.input("y", {3, 7, 33})}));
  if (!b.infer().empty()) throw std::runtime_error("the global pool graph does not infer");
  return b.graph();
}

inline constexpr const char* kGlobalPoolVariants[] = {"thread", "block", "warp"};

// Both pools of globalPoolGraph() on `variant` (one of kGlobalPoolVariants).
inline schedule::Constraints globalPoolPins(const std::string& variant) {
  schedule::Constraints c;
  c.kernelFor["gap"] = "global_avgpool_" + variant;
  c.kernelFor["gmp"] = "global_maxpool_" + variant;
  return c;
}

}  // namespace rammer::testing

#pragma once
// What the pass tests ask of a graph: how many nodes of an op it has, and
// what the reference executor computes for its first output.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/exec/reference_executor.h"
#include "core/passes/pass_manager.h"

namespace rammer::testing {

inline size_t opCount(const ir::Graph& g, const std::string& op) {
  auto h = passes::opHistogram(g);
  return h.count(op) ? h[op] : 0;
}

inline std::vector<float> firstOutput(const ir::Graph& g, const std::vector<ir::Tensor>& inputs) {
  auto r = exec::runReference(g, inputs);
  EXPECT_TRUE(r.ok()) << r.errorText();
  if (!r) return {};
  auto v = (*r)[0].values<float>();
  return {v.begin(), v.end()};
}

inline std::vector<float> firstOutput(const ir::Graph& g, const ir::Tensor& x) { return firstOutput(g, std::vector<ir::Tensor>{x}); }

}  // namespace rammer::testing

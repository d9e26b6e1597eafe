#pragma once
// What the pass tests ask of a graph: how many nodes of an op it has, what
// the reference executor computes for its first output, and whether the
// standard pipeline keeps that output while every node it leaves has an
// rKernel (the lowerings' contract).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <cmath>

#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/kernels/kernel_library.h"
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

// Runs the standard pipeline on `g` (inputs seeded at random): the first
// output stays within `rtol` of what it was, and every node left has an
// rKernel. Returns the optimized graph for further checks.
inline ir::Graph expectLoweredKeepingOutputs(ir::Graph g, float rtol = 1e-5f) {
  auto inputs = exec::makeRandomInputs(g, 5);
  EXPECT_TRUE(inputs.ok()) << inputs.errorText();
  if (!inputs) return g;
  const std::vector<float> before = firstOutput(g, *inputs);
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(g, ctx);
  EXPECT_TRUE(records.ok()) << records.errorText();
  for (size_t i = 0; i < g.numNodeSlots(); ++i)
    if (!g.node(static_cast<ir::NodeId>(i)).removed)
      EXPECT_TRUE(kernels::kernelsFor(g, static_cast<ir::NodeId>(i)).ok())
          << g.node(static_cast<ir::NodeId>(i)).opType << " has no rKernel";
  const std::vector<float> after = firstOutput(g, *inputs);
  EXPECT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size() && i < after.size(); ++i)
    EXPECT_NEAR(after[i], before[i], rtol * (1 + std::fabs(before[i]))) << "element " << i;
  return g;
}

}  // namespace rammer::testing

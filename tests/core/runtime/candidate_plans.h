#pragma once
// Graphs of independent operators and plans that put every operator on its
// n-th candidate rKernel: how the runtime tests run each candidate of a
// family as generated code (host target, NVRTC).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/kernels/kernel_library.h"
#include "core/runtime/host_execution.h"
#include "core/schedule/constraints.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/candidate_pins.h"
#include "tests/support/graph_builder.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {

// One operator per graph output, each on its own inputs (all but the first
// constant when `constantWeights`).
struct NodeSpec {
  std::string op, name;
  std::vector<ir::Shape> inputs;
  ir::Attributes attributes;
};

inline ir::Graph graphOf(const std::vector<NodeSpec>& specs, bool constantWeights) {
  testing::GraphBuilder b;
  uint32_t seed = 11;
  for (const NodeSpec& s : specs) {
    std::vector<ir::ValueId> ins;
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      const std::string name = s.name + ".in" + std::to_string(i);
      ins.push_back(i > 0 && constantWeights ? b.constant(name, testing::randomTensor(s.inputs[i], ++seed))
                                             : b.input(name, s.inputs[i]));
    }
    b.output(b.op(s.op, s.name, ins, s.attributes));
  }
  const auto errors = b.infer();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().message);
  return b.graph();
}

inline std::vector<ir::NodeId> order(const ir::Graph& g) {
  auto o = g.topologicalOrder();
  if (!o) throw std::runtime_error(o.errorText());
  return std::move(o).value();
}

// Every operator in a program of its own (sequential), so each kernel has
// its own register budget, with operator i on candidate `pick` (the last
// one where it has fewer). Generated with persistent kernels
// (`persistent`): __launch_bounds__(threads, vEUs per SM), the budget.
inline schedule::Plan planWithCandidate(const ir::Graph& g, size_t pick) {
  return testing::planSample(g, "sequential", "h100", testing::candidatePins(g, pick));
}

inline codegen::CodegenOptions persistent() {
  codegen::CodegenOptions o;
  o.ordinaryKernelsForSequential = false;
  o.boundsAtPlanShape = true;  // each rKernel at its shape's register budget
  return o;
}

using testing::maxCandidates;

// Every candidate plan of `g` (planWithCandidate for each index) runs as
// generated code on the host target and matches `want` (relative L2 <= 1e-5
// per output); `seen` is shown each plan first.
inline void expectEveryCandidateMatches(const ir::Graph& g, const std::vector<ir::Tensor>& inputs,
                                        const std::vector<ir::Tensor>& want,
                                        const std::function<void(const schedule::Plan&)>& seen = {}) {
  for (size_t pick = 0; pick < maxCandidates(g); ++pick) {
    SCOPED_TRACE("candidate " + std::to_string(pick));
    const schedule::Plan plan = planWithCandidate(g, pick);
    if (seen) seen(plan);
    auto got = executeOnHost(plan, g, inputs, testing::hostTestOptions());
    ASSERT_TRUE(got.ok()) << got.errorText();
    ASSERT_EQ(got->outputs.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_LE(testing::relativeL2(got->outputs[i], want[i]), 1e-5) << g.value(g.outputs()[i]).name;
  }
}

}  // namespace rammer::runtime

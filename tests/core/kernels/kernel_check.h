#pragma once
// Runs every candidate rKernel of a node on the CPU, rTasks in shuffled
// order, and compares with the op's reference compute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/kernels/kernel_library.h"
#include "core/ops/op_registry.h"
#include "tests/support/graph_builder.h"

namespace rammer::testing {

// The last node added to the builder's graph.
inline ir::NodeId lastNode(const ir::Graph& g) { return static_cast<ir::NodeId>(g.numNodeSlots()) - 1; }

// Checks all candidates of `node`; `checked` gets how many there were.
inline void checkCandidates(const ir::Graph& g, ir::NodeId node, double rtol, size_t* checked = nullptr,
                            double atol = 1e-6) {
  auto ks = kernels::kernelsFor(g, node);
  ASSERT_TRUE(ks.ok()) << ks.errorText();
  if (checked) *checked = ks->candidates.size();
  EXPECT_FALSE(ks->isView);
  EXPECT_FALSE(ks->candidates.empty());
  const ir::Node& n = g.node(node);
  // Inputs: constants as they are, the rest random.
  std::vector<ir::Tensor> owned(n.inputs.size());
  std::vector<ir::TensorType> types;
  std::vector<const ir::Tensor*> values;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ir::ValueId v = n.inputs[i];
    if (v == ir::kNone) {
      types.emplace_back();
      values.push_back(nullptr);
      continue;
    }
    const ir::Value& val = g.value(v);
    types.push_back(val.type);
    if (val.constant) {
      values.push_back(&*val.constant);
    } else {
      owned[i] = randomTensor(val.type.shape, 1000 + static_cast<uint32_t>(i) * 7919);
      values.push_back(&owned[i]);
    }
  }
  const ops::OpDef* def = ops::OpRegistry::builtin().find(n.domain, n.opType);
  ASSERT_NE(def, nullptr);
  const ops::OpContext ctx(n, g.opsetVersion, types, values);
  const std::vector<ir::Tensor> ref = def->compute(ctx);

  kernels::TaskBuffers buffers;
  for (size_t i = 0; i < n.inputs.size(); ++i)
    buffers.inputs.push_back(values[i] && values[i]->dtype() == ir::DType::Float32 ? values[i]->data<float>() : nullptr);
  std::mt19937 rng(42);
  for (const kernels::RKernel& k : ks->candidates) {
    SCOPED_TRACE(k.name);
    EXPECT_GT(k.numRTasks, 0);
    EXPECT_GT(k.threads(), 0);
    EXPECT_FALSE(k.cudaSource.empty());
    EXPECT_NE(k.cudaSource.find(k.cudaFunction), std::string::npos);
    // As the runtime gives them: NaN (an element no rTask writes shows),
    // zeroed for split-K, and the rKernel's workspace after the outputs.
    std::vector<std::vector<float>> outs(n.outputs.size());
    buffers.outputs.assign(n.outputs.size(), nullptr);
    const float fill = k.zeroOutputsFirst ? 0.0f : std::numeric_limits<float>::quiet_NaN();
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      if (n.outputs[o] == ir::kNone) continue;
      outs[o].assign(static_cast<size_t>(ir::numElements(g.value(n.outputs[o]).type.shape)), fill);
      buffers.outputs[o] = outs[o].data();
    }
    std::vector<float> workspace(static_cast<size_t>(k.workspaceWords), 0.0f);
    if (k.workspaceWords > 0) buffers.outputs.push_back(workspace.data());
    std::vector<float> scratch(static_cast<size_t>(k.sharedBytes / 4 + 1));
    std::vector<int64_t> order(static_cast<size_t>(k.numRTasks));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int64_t t : order) k.cpu(t, buffers, scratch.data());
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      if (n.outputs[o] == ir::kNone) continue;
      ASSERT_LT(o, ref.size());
      const auto want = ref[o].values<float>();
      ASSERT_EQ(want.size(), outs[o].size()) << "output " << o;
      for (size_t e = 0; e < want.size(); ++e)
        ASSERT_NEAR(outs[o][e], want[e], atol + rtol * std::fabs(want[e])) << "output " << o << " element " << e;
    }
  }
}

}  // namespace rammer::testing

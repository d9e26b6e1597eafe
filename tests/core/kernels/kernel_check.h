#pragma once
// Runs every candidate rKernel of a node on the CPU, rTasks in shuffled
// order, and compares with the op's reference compute (float32 within a
// tolerance, integer and bool outputs exactly).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ir/words.h"
#include "core/kernels/kernel_library.h"
#include "core/ops/op_registry.h"
#include "tests/support/graph_builder.h"

namespace rammer::testing {

// The last node added to the builder's graph.
inline ir::NodeId lastNode(const ir::Graph& g) { return static_cast<ir::NodeId>(g.numNodeSlots()) - 1; }

// Integers in [-4, 5] or bools for a node's non-float input, seeded.
inline ir::Tensor randomWords(ir::DType dtype, const ir::Shape& shape, uint32_t seed) {
  ir::Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.setDouble(i, dtype == ir::DType::Bool ? static_cast<double>(rng() % 2) : static_cast<double>(rng() % 10) - 4);
  return t;
}

// The reference result as the emulator copies from it: per output, its
// words (ir/words.h) and their count.
struct ReferenceWords {
  std::vector<std::vector<float>> words;
  std::vector<std::span<const float>> spans;
  std::vector<int64_t> numel;
};
inline ReferenceWords referenceWords(const std::vector<ir::Tensor>& ref) {
  ReferenceWords r;
  r.words.resize(ref.size());
  for (size_t o = 0; o < ref.size(); ++o) {
    auto w = ir::toWords(ref[o], ref[o].numel(), "output " + std::to_string(o));
    if (!w) throw std::runtime_error(w.errorText());
    r.words[o] = std::move(w).value();
    r.numel.push_back(ref[o].numel());
  }
  for (const std::vector<float>& w : r.words) r.spans.emplace_back(w);
  return r;
}

// Runs rTask `t` of `k` on `buffers`: the elements it declares it writes,
// copied from the reference result `ref` (what the emulator does,
// core/exec/reference_tiles.h); the check then shows the declared elements
// cover every output element exactly.
inline void runRTask(const kernels::RKernel& k, int64_t t, const kernels::TaskBuffers& buffers,
                     const ReferenceWords& ref) {
  ASSERT_TRUE(static_cast<bool>(k.written)) << k.name << " does not declare the elements its rTasks write";
  std::vector<kernels::WrittenRun> runs;
  k.written(t, runs);
  const size_t outputs = std::min(buffers.outputs.size(), ref.spans.size());
  kernels::copyWrittenRuns(runs, ref.spans, std::span(buffers.outputs.data(), outputs), ref.numel);
}

// Checks all candidates of `node`; `checked` gets how many there were.
// Inputs: constants as they are, `given[i]` where given (non-empty), the
// rest random. Integer and bool tensors go in and come out as run-time
// words (ir/words.h); their outputs must match the reference exactly.
inline void checkCandidates(const ir::Graph& g, ir::NodeId node, double rtol, size_t* checked = nullptr,
                            double atol = 1e-6, const std::vector<ir::Tensor>& given = {}) {
  auto ks = kernels::kernelsFor(g, node);
  ASSERT_TRUE(ks.ok()) << ks.errorText();
  if (checked) *checked = ks->candidates.size();
  EXPECT_FALSE(ks->isView);
  EXPECT_FALSE(ks->candidates.empty());
  const ir::Node& n = g.node(node);
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
      const auto seed = 1000 + static_cast<uint32_t>(i) * 7919;
      owned[i] = i < given.size() && !given[i].empty()       ? given[i]
                 : val.type.dtype == ir::DType::Float32 ? randomTensor(val.type.shape, seed)
                                                        : randomWords(val.type.dtype, val.type.shape, seed);
      values.push_back(&owned[i]);
    }
  }
  const ops::OpDef* def = ops::OpRegistry::builtin().find(n.domain, n.opType);
  ASSERT_NE(def, nullptr);
  const ops::OpContext ctx(n, g.opsetVersion, types, values);
  const std::vector<ir::Tensor> ref = def->compute(ctx);
  const ReferenceWords refWords = referenceWords(ref);

  std::vector<std::vector<float>> words(n.inputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (values[i] && values[i]->dtype() != ir::DType::Float32 && ir::heldAsWords(values[i]->dtype())) {
      auto w = ir::toWords(*values[i], values[i]->numel(), "input " + std::to_string(i));
      if (w) words[i] = std::move(w).value();
    }
  std::mt19937 rng(42);
  for (const kernels::RKernel& k : ks->candidates) {
    SCOPED_TRACE(k.name);
    kernels::TaskBuffers buffers;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const bool baked = values[i] && g.value(n.inputs[i]).constant && !k.readsConstantAsWords(i);
      buffers.inputs.push_back(!values[i] || (baked && values[i]->dtype() != ir::DType::Float32) ? nullptr
                               : values[i]->dtype() == ir::DType::Float32                        ? values[i]->data<float>()
                                                                                                  : words[i].data());
    }
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
    std::vector<int64_t> order(static_cast<size_t>(k.numRTasks));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int64_t t : order) runRTask(k, t, buffers, refWords);
    if (k.written) {  // the rTasks' declared elements: every output element exactly once
      std::vector<std::vector<int>> writes(n.outputs.size());
      for (size_t o = 0; o < n.outputs.size(); ++o) writes[o].assign(outs[o].size(), 0);
      std::vector<kernels::WrittenRun> runs;
      for (int64_t t = 0; t < k.numRTasks; ++t) {
        runs.clear();
        k.written(t, runs);
        for (const kernels::WrittenRun& r : runs) {
          std::vector<int>& w = writes.at(static_cast<size_t>(r.slot));
          if (w.empty()) continue;  // an omitted output
          for (int64_t i = 0; i < r.count; ++i) ++w.at(static_cast<size_t>(r.first + i * r.stride));
        }
      }
      for (size_t o = 0; o < n.outputs.size(); ++o)
        for (size_t e = 0; e < writes[o].size(); ++e)
          ASSERT_EQ(writes[o][e], 1) << "output " << o << " element " << e << " is written by " << writes[o][e]
                                     << " rTasks";
    }
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      if (n.outputs[o] == ir::kNone) continue;
      ASSERT_LT(o, ref.size());
      if (ref[o].dtype() != ir::DType::Float32) {
        ASSERT_EQ(g.value(n.outputs[o]).type.dtype, ref[o].dtype());
        const ir::Tensor got = ir::fromWords(ref[o].dtype(), ref[o].shape(), outs[o]);
        for (int64_t e = 0; e < ref[o].numel(); ++e)
          ASSERT_EQ(got.getInt64(e), ref[o].getInt64(e)) << "output " << o << " element " << e;
        continue;
      }
      const auto want = ref[o].values<float>();
      ASSERT_EQ(want.size(), outs[o].size()) << "output " << o;
      for (size_t e = 0; e < want.size(); ++e) {
        if ((std::isnan(want[e]) && std::isnan(outs[o][e])) || want[e] == outs[o][e]) continue;  // NaN, infinities
        ASSERT_NEAR(outs[o][e], want[e], atol + rtol * std::fabs(want[e])) << "output " << o << " element " << e;
      }
    }
  }
}

}  // namespace rammer::testing

#pragma once
// Shared by the GEMM and Conv rKernel tests: random operands, the reference
// op's answer, every rTask of a candidate run on the CPU in shuffled order
// (optionally from two threads), and the nvcc check of generated sources.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/kernels/rkernel.h"
#include "core/ops/op_registry.h"
#include "core/ops/type_inference.h"
#include "tests/support/graph_builder.h"

namespace rammer::kernels::testutil {

inline ir::Tensor randomTensor(const ir::Shape& shape, std::mt19937& rng) {
  ir::Tensor t(ir::DType::Float32, shape);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (float& v : t.values<float>()) v = d(rng);
  return t;
}

// A one-node graph whose inputs are graph inputs with random values.
struct OneNode {
  testing::GraphBuilder b;
  std::map<ir::ValueId, ir::Tensor> values;
  std::vector<ir::ValueId> inputs;  // kNone for an omitted slot
  ir::NodeId node = 0;
  ir::ValueId out = ir::kNone;

  void add(const std::string& name, const ir::Shape& shape, std::mt19937& rng) {
    const ir::ValueId v = b.input(name, shape);
    values.emplace(v, randomTensor(shape, rng));
    inputs.push_back(v);
  }
  void omit() { inputs.push_back(ir::kNone); }
  void finish(const std::string& op, ir::Attributes a = {}) {
    out = b.op(op, "n", inputs, std::move(a));
    b.output(out);
    const auto diags = b.infer();
    ASSERT_TRUE(diags.empty()) << diags.front().message;
    node = static_cast<ir::NodeId>(b.graph().numNodeSlots() - 1);
  }
  const ir::Graph& graph() { return b.graph(); }

  ir::Tensor reference() {
    std::vector<const ir::Tensor*> known(b.graph().numValues(), nullptr);
    for (auto& [v, t] : values) known[static_cast<size_t>(v)] = &t;
    const ir::Node& n = b.graph().node(node);
    const ops::OpContext ctx = ops::makeContext(b.graph(), n, known);
    return ops::OpRegistry::builtin().find("", n.opType)->compute(ctx).at(0);
  }

  // Every rTask of `k`, in a shuffled order, split over `threads` threads
  // (like separate vEUs), copying the elements it declares it writes from
  // the reference, as the emulator does: the NaN fill (zeros for split-K)
  // shows what no rTask wrote.
  ir::Tensor run(const RKernel& k, uint32_t seed, int threads = 1) {
    EXPECT_TRUE(static_cast<bool>(k.written)) << k.name << " does not declare what its rTasks write";
    const ir::Tensor ref = reference();
    const std::vector<std::span<const float>> from = {ref.values<float>()};
    const std::vector<int64_t> numel = {ref.numel()};
    ir::Tensor y(ir::DType::Float32, b.graph().value(out).type.shape);
    // Outputs no rTask writes show up as NaN.
    std::fill(y.values<float>().begin(), y.values<float>().end(),
              k.zeroOutputsFirst ? 0.0f : std::numeric_limits<float>::quiet_NaN());
    TaskBuffers buf;
    for (ir::ValueId v : inputs) buf.inputs.push_back(v == ir::kNone ? nullptr : values.at(v).data<float>());
    buf.outputs.push_back(y.data<float>());
    std::vector<int64_t> order(static_cast<size_t>(k.numRTasks));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    auto work = [&](int part) {
      for (size_t i = static_cast<size_t>(part); i < order.size(); i += static_cast<size_t>(threads)) {
        std::vector<WrittenRun> runs;
        k.written(order[i], runs);
        copyWrittenRuns(runs, from, std::span(buf.outputs.data(), 1), numel);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& t : pool) t.join();
    return y;
  }
};

// rtol 1e-4 (with the same absolute floor for values near zero).
inline ::testing::AssertionResult close(const ir::Tensor& got, const ir::Tensor& want) {
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << ir::shapeToString(got.shape()) << " vs "
                                         << ir::shapeToString(want.shape());
  const auto g = got.values<float>(), w = want.values<float>();
  for (size_t i = 0; i < g.size(); ++i)
    if (!(std::fabs(g[i] - w[i]) <= 1e-4f * (std::fabs(w[i]) + 1.0f)))
      return ::testing::AssertionFailure() << "element " << i << ": " << g[i] << " vs reference " << w[i];
  return ::testing::AssertionSuccess();
}

// Checks every candidate of the node against the reference; split-K ones
// also from two threads at once.
template <class KernelsFn>
void checkAllCandidates(OneNode& t, KernelsFn kernelsFn, size_t minCandidates = 1) {
  const std::vector<RKernel> ks = kernelsFn(t.graph(), t.node);
  ASSERT_GE(ks.size(), minCandidates);
  const ir::Tensor want = t.reference();
  uint32_t seed = 1;
  for (const RKernel& k : ks) {
    SCOPED_TRACE(k.name);
    EXPECT_GT(k.numRTasks, 0);
    EXPECT_TRUE(close(t.run(k, seed++), want));
    if (k.zeroOutputsFirst) {
      EXPECT_TRUE(close(t.run(k, seed++, 2), want));
    }
  }
}

// A __global__ wrapper per device function, so nvcc instantiates each one.
inline std::string cudaWrapper(const RKernel& k, int numInputs) {
  std::string params, args;
  for (int i = 0; i < numInputs; ++i) {
    params += "const float* in" + std::to_string(i) + ", ";
    args += ", in" + std::to_string(i);
  }
  return "__global__ void g_" + k.cudaFunction + "(" + params + "float* out0) {\n  extern __shared__ float smem[];\n  " +
         k.cudaFunction + "(blockIdx.x, threadIdx.x, smem" + args + ", out0);\n}\n";
}

inline const char* kNvcc = "/usr/local/cuda/bin/nvcc";

}  // namespace rammer::kernels::testutil

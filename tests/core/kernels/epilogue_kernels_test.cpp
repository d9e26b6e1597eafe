// The GEMM rKernels of FusedConv / FusedGemm / FusedMatMul nodes (issue #27
// item 3): every candidate's CPU tile computes the base op and the epilogue,
// and no split-K variant is offered (its chunks add partial sums into the
// output, which the epilogue must not see).
#include <gtest/gtest.h>

#include "core/ops/math/fused_epilogue.h"
#include "tests/core/kernels/kernel_check.h"
#include "tests/support/epilogue_graph.h"

using namespace rammer;
namespace rt = rammer::testing;

TEST(EpilogueKernels, EveryCandidateAppliesTheEpilogueAndNoneSplitsK) {
  const ir::Graph g = rt::optimizedEpilogueGraph(true);
  size_t fusedNodes = 0;
  bool gemv = false, depthwise = false;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    if (n.removed || !ops::epilogueOpOf(n.opType)) continue;
    SCOPED_TRACE(n.name);
    ++fusedNodes;
    size_t count = 0;
    rt::checkCandidates(g, id, 1e-4, &count);
    auto ks = kernels::kernelsFor(g, id);
    ASSERT_TRUE(ks.ok()) << ks.errorText();
    for (const kernels::RKernel& k : ks->candidates) {
      EXPECT_FALSE(k.zeroOutputsFirst) << k.name;
      EXPECT_EQ(k.name.find("splitk"), std::string::npos) << k.name;
      gemv = gemv || k.name == "gemv_kmajor";
      depthwise = depthwise || k.name == "conv_depthwise";
    }
  }
  EXPECT_EQ(fusedNodes, 5u);
  EXPECT_TRUE(gemv) << "the FusedGemm of one row offers the GEMV, without split-K";
  EXPECT_TRUE(depthwise);
}

// The epilogue's cost is counted: its operations and its other inputs' bytes.
TEST(EpilogueKernels, TheEpilogueAddsItsFlopsAndBytes) {
  const ir::Graph plain = rt::optimizedEpilogueGraph(false);
  const ir::Graph fused = rt::optimizedEpilogueGraph(true);
  auto kernelOf = [](const ir::Graph& g, const std::string& node, const std::string& kernel) {
    for (size_t i = 0; i < g.numNodeSlots(); ++i) {
      const auto id = static_cast<ir::NodeId>(i);
      if (g.node(id).removed || g.node(id).name != node) continue;
      const auto ks = kernels::kernelsFor(g, id);
      if (ks)
        for (const auto& k : ks->candidates)
          if (k.name == kernel) return k;
    }
    ADD_FAILURE() << node << " has no " << kernel;
    return kernels::RKernel{};
  };
  const kernels::RKernel a = kernelOf(plain, "conv2", "conv_igemm_64x64");
  const kernels::RKernel b = kernelOf(fused, "conv2+epilogue", "conv_igemm_64x64");
  const double outputs = 16 * 9 * 9;
  EXPECT_DOUBLE_EQ(b.flops, a.flops + 2 * outputs);  // add, relu
  EXPECT_DOUBLE_EQ(b.bytes, a.bytes + 4 * outputs);  // the residual read
  EXPECT_NE(b.cudaSource.find("fmaxf"), std::string::npos) << b.cudaSource;
}

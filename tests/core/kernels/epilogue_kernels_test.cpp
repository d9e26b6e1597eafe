// The GEMM rKernels of FusedConv / FusedGemm / FusedMatMul nodes (issue #27
// item 3): every candidate's rTasks cover the output of the base op and the
// epilogue (the emulator's copies of the reference);
// on layers deep in K the split-K variants are offered too, their last
// chunk to arrive applying the epilogue (a counter per tile in their
// workspace).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/kernels/cuda_library.h"
#include "core/ops/math/fused_epilogue.h"
#include "tests/core/kernels/kernel_check.h"
#include "tests/support/epilogue_graph.h"

using namespace rammer;
namespace rt = rammer::testing;

TEST(EpilogueKernels, EveryCandidateAppliesTheEpilogue) {
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
      gemv = gemv || k.name == "gemv_kmajor";
      depthwise = depthwise || k.name == "conv_depthwise";
    }
  }
  EXPECT_EQ(fusedNodes, 5u);
  EXPECT_TRUE(gemv) << "the FusedGemm of one row offers the GEMV";
  EXPECT_TRUE(depthwise);
}

TEST(EpilogueKernels, SplitKVariantsApplyTheEpilogueOnceTheLastChunkArrives) {
  const ir::Graph g = rt::optimized(rt::splitKEpilogueGraph(), true);
  std::set<std::string> split;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    if (n.removed || !ops::epilogueOpOf(n.opType)) continue;
    SCOPED_TRACE(n.name);
    rt::checkCandidates(g, id, 1e-4);
    auto ks = kernels::kernelsFor(g, id);
    ASSERT_TRUE(ks.ok()) << ks.errorText();
    for (const kernels::RKernel& k : ks->candidates) {
      if (k.name.find("splitk") == std::string::npos) {
        EXPECT_EQ(k.workspaceWords, 0) << k.name;
        continue;
      }
      split.insert(n.name + " " + k.name.substr(0, k.name.find("_splitk")));
      // A counter word per output tile, zeroed with the output before the first chunk.
      EXPECT_TRUE(k.zeroOutputsFirst) << k.name;
      EXPECT_GT(k.workspaceWords, 0) << k.name;
      EXPECT_LT(k.workspaceWords, k.numRTasks) << k.name;
      // The rTask template gets the epilogue and the workspace (its last
      // chunk's epilogue runs on the host: EpilogueHost).
      EXPECT_NE(k.cudaSource.find("RammerEpilogue<Epilogue>"), std::string::npos) << k.cudaSource;
      EXPECT_NE(k.cudaSource.find(", out0, out1"), std::string::npos) << k.cudaSource;
      EXPECT_NE(std::find(k.cudaLibraries.begin(), k.cudaLibraries.end(), kernels::kSplitK), k.cudaLibraries.end());
    }
  }
  EXPECT_EQ(split, (std::set<std::string>{"deep_conv conv_igemm_64x64", "deep_mm gemm_32x32",
                                          "deep_mm gemv_nmajor", "deep_fc gemm_32x32",
                                          "deep_fc gemv_kmajor"}));
}

// The epilogue's cost is counted: its operations and its other inputs' bytes.
TEST(EpilogueKernels, TheEpilogueAddsItsFlopsAndBytes) {
  const ir::Graph plain = rt::optimizedEpilogueGraph(false);
  const ir::Graph fused = rt::optimizedEpilogueGraph(true);
  const kernels::RKernel a = rt::candidateOf(plain, "conv2", "conv_igemm_64x64");
  const kernels::RKernel b = rt::candidateOf(fused, "conv2", "conv_igemm_64x64");
  const double outputs = 16 * 9 * 9;
  EXPECT_DOUBLE_EQ(b.flops, a.flops + 2 * outputs);  // add, relu
  EXPECT_DOUBLE_EQ(b.bytes, a.bytes + 4 * outputs);  // the residual read
  EXPECT_NE(b.cudaSource.find("fmaxf"), std::string::npos) << b.cudaSource;
}

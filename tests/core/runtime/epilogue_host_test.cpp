// FusedConv / FusedGemm / FusedMatMul as generated code (issue #27 item 3):
// every candidate of every fused node runs as CUDA text on the host target
// and matches the reference executor on the unfused graph.
#include <gtest/gtest.h>

#include <set>

#include "core/exec/reference_executor.h"
#include "core/ops/math/fused_epilogue.h"
#include "core/runtime/host_execution.h"
#include "tests/core/runtime/candidate_plans.h"
#include "tests/support/epilogue_graph.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

TEST(EpilogueHost, EveryCandidateOfEveryFusedNodeMatchesTheUnfusedReference) {
  const ir::Graph plain = testing::optimizedEpilogueGraph(false);
  const ir::Graph fused = testing::optimizedEpilogueGraph(true);
  const std::vector<ir::Tensor> inputs = testing::seededInputs(plain);
  auto want = exec::runReference(plain, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  std::set<std::string> ran;  // "node kernel"
  expectEveryCandidateMatches(fused, inputs, *want, [&](const schedule::Plan& plan) {
    for (const auto& op : plan.ops)
      if (ops::epilogueOpOf(op.opType)) ran.insert(op.name + " " + op.kernel.name);
  });
  for (const char* k : {"conv1 conv_igemm_128x64", "conv2 conv_igemm_32x32",
                        "dw conv_depthwise", "fc gemv_kmajor", "mm gemm_16x64"})
    EXPECT_EQ(ran.count(k), 1u) << k;
}

// The split-K variants of fused nodes: the chunks add into the output, the
// last to arrive applies the epilogue (cuda/splitk.cuh) on the host
// target's worker threads, as generated code.
TEST(EpilogueHost, SplitKCandidatesApplyTheEpilogueOnceAsGeneratedCode) {
  const ir::Graph plain = testing::optimized(testing::splitKEpilogueGraph(), false);
  const ir::Graph fused = testing::optimized(testing::splitKEpilogueGraph(), true);
  const std::vector<ir::Tensor> inputs = testing::seededInputs(plain);
  auto want = exec::runReference(plain, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  size_t split = 0;
  expectEveryCandidateMatches(fused, inputs, *want, [&](const schedule::Plan& plan) {
    for (const auto& op : plan.ops) split += op.kernel.workspaceWords > 0 ? 1 : 0;
  });
  EXPECT_GE(split, 5u);
}

}  // namespace
}  // namespace rammer::runtime

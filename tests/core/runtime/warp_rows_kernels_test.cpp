// The warp-per-row variants of the row-shaped families (issue #27 item 5:
// global pooling, softmax over the innermost axis, reductions): a warp's
// lanes read one row's consecutive elements, the lanes' partials meet in a
// shared-memory tree per warp (block_reduce.cuh). Run as generated code on
// the host target against the reference executor, every candidate of every
// node (NVRTC compiles them: tests/core/codegen/cuda_compile_test.cpp).
#include <gtest/gtest.h>

#include <set>

#include "core/exec/reference_executor.h"
#include "core/runtime/host_execution.h"
#include "tests/core/runtime/candidate_plans.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

using testing::attrs;

// Rows of 32 and more, ragged against the 8 rows an rTask takes and the
// 32 lanes of a warp; a strided reduction (a warp's lanes then read apart,
// but the answer must still be right) and masked softmax rows.
std::vector<NodeSpec> rowSpecs() {
  return {
      {"GlobalAveragePool", "gap_8x8", {{1, 21, 8, 8}}, {}},
      {"GlobalMaxPool", "gmp_odd", {{2, 5, 7, 9}}, {}},
      {"GlobalAveragePool", "gap_1d", {{3, 3, 33}}, {}},
      {"Softmax", "softmax_64", {{2, 13, 64}}, {}},
      {"LogSoftmax", "logsoftmax_odd", {{7, 45}}, {}},
      {"Softmax", "softmax_long", {{3, 1500}}, {}},
      {"ReduceMean", "mean_last", {{6, 5, 70}}, attrs({{"axes", std::vector<int64_t>{-1}}})},
      {"ReduceMax", "max_two", {{3, 9, 4, 10}}, attrs({{"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t{0}}})},
      {"ReduceSum", "sum_strided", {{40, 11}}, attrs({{"axes", std::vector<int64_t>{0}}})},
  };
}

size_t warpVariants(const ir::Graph& g) {
  size_t n = 0;
  for (ir::NodeId id : order(g)) {
    auto ks = kernels::kernelsFor(g, id);
    EXPECT_TRUE(ks.ok()) << ks.errorText();
    if (ks)
      for (const auto& k : ks->candidates) n += k.name.ends_with("_warp") ? 1 : 0;
  }
  return n;
}

TEST(WarpRowsHost, EveryCandidateOfEveryRowShapeMatchesTheReference) {
  const ir::Graph g = graphOf(rowSpecs(), false);
  ASSERT_EQ(warpVariants(g), rowSpecs().size());  // each node offers its warp variant
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  std::set<std::string> ranWarp;  // nodes whose warp variant ran
  expectEveryCandidateMatches(g, inputs, *want, [&](const schedule::Plan& plan) {
    for (const auto& op : plan.ops)
      if (op.kernel.name.ends_with("_warp")) ranWarp.insert(op.name);
  });
  EXPECT_EQ(ranWarp.size(), rowSpecs().size());  // every warp variant ran
}

}  // namespace
}  // namespace rammer::runtime

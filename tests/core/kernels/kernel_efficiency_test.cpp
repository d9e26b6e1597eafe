// A tiled GEMM whose M fills a quarter of its tile or less is priced with
// its family's ":skinny" efficiency where the device has one (the H100
// preset: 0.48, measured), and with the family's elsewhere.
#include "core/kernels/kernel_efficiency.h"

#include <gtest/gtest.h>

#include "core/kernels/gemm_kernels.h"
#include "tests/core/kernels/gemm_conv_test_util.h"

namespace rammer::kernels {
namespace {

// The tiled (non-GEMV) candidates of MatMul [m, k] x [k, n].
std::vector<RKernel> tiledCandidates(int64_t m, int64_t k, int64_t n) {
  std::mt19937 rng(3);
  testutil::OneNode t;
  t.add("A", {m, k}, rng);
  t.add("B", {k, n}, rng);
  t.finish("MatMul");
  std::vector<RKernel> tiled;
  for (RKernel& c : gemmKernels(t.graph(), t.node))
    if (c.family == "gemm" || c.family == "gemm_splitk") tiled.push_back(std::move(c));
  return tiled;
}

TEST(KernelEfficiency, ASkinnyTileTakesItsOwnEfficiencyWhereTheDeviceHasOne) {
  const auto h100 = device::presetDevice("h100").value();
  const auto a100 = device::presetDevice("a100").value();
  const std::vector<RKernel> skinny = tiledCandidates(1, 1024, 512);
  ASSERT_FALSE(skinny.empty());
  for (const RKernel& k : skinny) {
    SCOPED_TRACE(k.name);
    ASSERT_GE(k.params.at("tile_m"), 4);
    EXPECT_EQ(efficiencyKey(k), k.family + ":skinny");
    EXPECT_DOUBLE_EQ(kernelEfficiency(k, h100), h100.kernelEfficiency.at(k.family + ":skinny"));
    EXPECT_DOUBLE_EQ(kernelEfficiency(k, a100), a100.efficiencyOf(k.family)) << "no skinny entry: the family's";
  }
  EXPECT_DOUBLE_EQ(h100.kernelEfficiency.at("gemm_splitk:skinny"), 0.48);
  const std::vector<RKernel> full = tiledCandidates(128, 1024, 512);
  ASSERT_FALSE(full.empty());
  for (const RKernel& k : full) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(efficiencyKey(k), k.family);
    EXPECT_DOUBLE_EQ(kernelEfficiency(k, h100), h100.efficiencyOf(k.family));
  }
}

}  // namespace
}  // namespace rammer::kernels

// compileOffline (issue #27 items 1 and 2): the plan's CUDA through NVRTC
// without a GPU; each program's compiled registers reach the plan's
// rKernels, and a program the device cannot hold with them is refused.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/runtime/offline_compile.h"
#include "tests/core/codegen/codegen_fixtures.h"

namespace rammer::runtime {
namespace {

TEST(OfflineCompile, CompiledRegistersReachThePlanAndFitItsShape) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "NVRTC not found: " << nvrtc.errorText();
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  schedule::Plan plan = testing::planSample(g, "wavefront");
  auto compiled = compileOffline(plan, g, **nvrtc);
  ASSERT_TRUE(compiled.ok()) << compiled.errorText();
  EXPECT_EQ(compiled->arch, "sm_90");
  EXPECT_FALSE(compiled->nvrtcVersion.empty());
  ASSERT_EQ(compiled->programs.size(), plan.programs.size());
  for (const ProgramResources& r : compiled->programs) {
    SCOPED_TRACE(r.summary);
    const auto& info = plan.programs.at(static_cast<size_t>(r.program));
    EXPECT_GT(r.usage.registers, 0);
    EXPECT_EQ(r.spillStoreBytes(), 0);
    // __launch_bounds__(threads, vEUs per SM) held the compiler to the shape.
    EXPECT_GE(r.occupancy.blocksPerSM, info.veusPerSM);
    EXPECT_GE(r.coResident, info.program.numVEUs());
  }
  // Every operator's rKernel now carries its program's compiled count.
  for (size_t op = 0; op < plan.ops.size(); ++op) {
    if (plan.ops[op].isView) continue;
    int registers = 0;
    for (const ProgramResources& r : compiled->programs)
      if (plan.programs.at(static_cast<size_t>(r.program)).program.contains({static_cast<int32_t>(op), 0}))
        registers = std::max(registers, r.usage.registers);
    EXPECT_GT(registers, 0) << plan.ops[op].name;
    EXPECT_EQ(plan.ops[op].kernel.regsEstimate, registers) << plan.ops[op].name;
  }
}

TEST(OfflineCompile, AProgramTheDeviceCannotHoldWithTheCompiledCountsIsRefused) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "NVRTC not found: " << nvrtc.errorText();
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  schedule::Plan plan = testing::planSample(g, "wavefront");
  ASSERT_GE(plan.programs.front().veusPerSM, 2);
  // Planned for an H100; checked against an SM with half its registers,
  // which holds one block of the 128-register convolutions, not two.
  plan.device.regsPerSM /= 2;
  auto compiled = compileOffline(plan, g, **nvrtc);
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(compiled.errorText().find("co-resident"), std::string::npos) << compiled.errorText();
  EXPECT_NE(compiled.errorText().find("program 0"), std::string::npos) << compiled.errorText();
}

}  // namespace
}  // namespace rammer::runtime

// The compiler's resource usage decides whether a program's vEUs can all be
// co-resident; expected block counts are worked out here from the H100's
// limits (65536 registers and 2048 threads per SM, 4 register files,
// 256-register allocation units, 228 KiB shared memory, 1 KiB reserved per block).
#include <gtest/gtest.h>

#include "core/runtime/resource_check.h"
#include "tests/core/runtime/runtime_fixtures.h"

namespace rammer::runtime {
namespace {

struct Launch0 {
  schedule::Plan plan = testing::handPlan();
  codegen::GeneratedProgram program = testing::handProgram();
  std::map<std::string, KernelResourceUsage> usage;

  Launch0(int grid, int threads, int regs, int64_t shared) {
    program.launches[0].gridBlocks = grid;
    program.launches[0].blockThreads = threads;
    usage["hand_program0"] = KernelResourceUsage{regs, shared, 0, 0, 0, 1};
    usage["hand_program1"] = KernelResourceUsage{16, 0, 0, 0, 0, 1};
  }
};

TEST(ResourceCheck, AProgramThatFitsUpdatesTheRegisterEstimates) {
  // 256 threads = 8 warps; 32 regs -> 1024 per warp -> 16 warps per register
  // file x 4 = 64 warps -> 8 blocks; warps allow 64 / 8 = 8 too: 8 x 132 = 1056.
  Launch0 s(1056, 256, 32, 0);
  auto r = applyCompiledResources(s.plan, s.program, s.usage);
  ASSERT_TRUE(r.ok()) << r.errorText();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].occupancy.blocksPerSM, 8);
  EXPECT_EQ((*r)[0].coResident, 1056);
  EXPECT_EQ((*r)[0].program, 0);
  EXPECT_NE((*r)[0].summary.find("program 0 (kernel hand_program0)"), std::string::npos) << (*r)[0].summary;
  // Ops 0 and 1 run inside hand_program0, op 2 inside hand_program1.
  EXPECT_EQ(s.plan.ops[0].kernel.regsEstimate, 32);
  EXPECT_EQ(s.plan.ops[1].kernel.regsEstimate, 32);
  EXPECT_EQ(s.plan.ops[2].kernel.regsEstimate, 16);
}

TEST(ResourceCheck, TheRKernelFunctionsSpillsBelongToTheLaunchThatCallsThem) {
  Launch0 s(132, 256, 32, 0);
  s.usage["hand_program0"].spillStoreBytes = 8;
  s.program.launches[0].functions = {"rammer_fn0", "rammer_fn1", "rammer_fn9"};
  std::map<std::string, KernelResourceUsage> functions;
  functions["rammer_fn0"] = KernelResourceUsage{0, 0, 16, 20, 28, 0};
  functions["rammer_fn1"] = KernelResourceUsage{0, 0, 0, 4, 4, 0};
  functions["rammer_fn2"] = KernelResourceUsage{0, 0, 0, 500, 500, 0};  // called by no launch
  auto r = applyCompiledResources(s.plan, s.program, s.usage, functions);
  ASSERT_TRUE(r.ok()) << r.errorText();
  const ProgramResources& p0 = (*r)[0];
  ASSERT_EQ(p0.functions.size(), 2u);  // rammer_fn9 was inlined or not reported
  EXPECT_EQ(p0.functionSpillStoreBytes, 24);
  EXPECT_EQ(p0.functionSpillLoadBytes, 32);
  EXPECT_EQ(p0.spillStoreBytes(), 32);
  EXPECT_NE(p0.summary.find("32 B spilled (24 in rKernel functions)"), std::string::npos) << p0.summary;
  EXPECT_EQ((*r)[1].spillStoreBytes(), 0);
}

TEST(ResourceCheck, TooManyRegistersForTheGridIsRefused) {
  // 40 regs -> 1280 per warp -> 12 warps per register file x 4 = 48 -> 6
  // blocks of 8 warps: 6 x 132 = 792 < 1056.
  Launch0 s(1056, 256, 40, 0);
  auto r = applyCompiledResources(s.plan, s.program, s.usage);
  ASSERT_FALSE(r.ok());
  const std::string e = r.errorText();
  EXPECT_NE(e.find("program 0 (kernel hand_program0) has 1056 vEUs but only 792"), std::string::npos) << e;
  EXPECT_NE(e.find("6 per SM x 132 SMs"), std::string::npos) << e;
  EXPECT_NE(e.find("limited by registers: 40 per thread x 256 threads"), std::string::npos) << e;
  EXPECT_NE(e.find("deadlock"), std::string::npos) << e;
  EXPECT_EQ(s.plan.ops[0].kernel.regsEstimate, 20) << "a refused plan is left as it was";
}

TEST(ResourceCheck, AnOrdinaryKernelMayHaveMoreBlocksThanFitAtOnce) {
  // The same 40-register kernel, but not persistent (RammerBase): its
  // blocks never wait on each other, so extra blocks just run later.
  Launch0 s(1056, 256, 40, 0);
  s.program.launches[0].persistent = false;
  auto r = applyCompiledResources(s.plan, s.program, s.usage);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ((*r)[0].occupancy.blocksPerSM, 6);
  EXPECT_EQ(s.plan.ops[0].kernel.regsEstimate, 40);
}

TEST(ResourceCheck, TooMuchSharedMemoryForTheGridIsRefused) {
  // 100000 B + 1024 reserved, in 128 B units = 101120 B per block; 233472 B
  // per SM hold 2: 264 < 396.
  Launch0 s(396, 128, 32, 100000);
  auto r = applyCompiledResources(s.plan, s.program, s.usage);
  ASSERT_FALSE(r.ok());
  const std::string e = r.errorText();
  EXPECT_NE(e.find("has 396 vEUs but only 264"), std::string::npos) << e;
  EXPECT_NE(e.find("limited by shared memory"), std::string::npos) << e;
}

TEST(ResourceCheck, AKernelThatCannotRunAtAllIsRefused) {
  // 255 regs x 1024 threads need 262144 registers; a block has 65536.
  Launch0 s(2, 1024, 255, 0);
  auto r = applyCompiledResources(s.plan, s.program, s.usage);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("program 0 (kernel hand_program0) cannot run on h100"), std::string::npos)
      << r.errorText();
  EXPECT_NE(r.errorText().find("register limit"), std::string::npos) << r.errorText();
}

TEST(ResourceCheck, AKernelWithoutAReportIsAnError) {
  Launch0 s(2, 128, 32, 0);
  s.usage.erase("hand_program1");
  auto r = applyCompiledResources(s.plan, s.program, s.usage);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("program 1 (kernel hand_program1): the compiler reported no resource usage"),
            std::string::npos)
      << r.errorText();
}

}  // namespace
}  // namespace rammer::runtime

// Reading ptxas's verbose report, as NVRTC 13 prints it.
#include <gtest/gtest.h>

#include "core/runtime/ptxas_log.h"

namespace rammer::runtime {
namespace {

// Two entry functions and a non-inlined device function whose frame line
// must not be taken for an entry function's.
const char* kLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k1' for 'sm_90'
ptxas info    : Function properties for k1
ptxas         .     256 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 256 bytes cumulative stack size
ptxas info    : Compile time = 35.890 ms
ptxas info    : Function properties for _Z6helperPf
ptxas         .     64 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function 'k0' for 'sm_90'
ptxas info    : Function properties for k0
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 18 registers, used 1 barriers, 512 bytes smem, 360 bytes cmem[0]
ptxas info    : Compile time = 3.129 ms
)";

TEST(PtxasLog, ReadsEachEntryFunction) {
  auto r = parsePtxasLog(kLog);
  ASSERT_EQ(r.size(), 2u);
  const KernelResourceUsage& k1 = r.at("k1");
  EXPECT_EQ(k1.registers, 32);
  EXPECT_EQ(k1.stackBytes, 256);
  EXPECT_EQ(k1.spillStoreBytes, 8);
  EXPECT_EQ(k1.spillLoadBytes, 12);
  EXPECT_EQ(k1.staticSharedBytes, 0);
  EXPECT_EQ(k1.barriers, 0);
  const KernelResourceUsage& k0 = r.at("k0");
  EXPECT_EQ(k0.registers, 18);
  EXPECT_EQ(k0.staticSharedBytes, 512);
  EXPECT_EQ(k0.barriers, 1);
  EXPECT_EQ(k0.stackBytes, 0);
  EXPECT_EQ(k0.spillStoreBytes, 0);
}

TEST(PtxasLog, IgnoresTextItDoesNotKnow) {
  EXPECT_TRUE(parsePtxasLog("").empty());
  EXPECT_TRUE(parsePtxasLog("gen.cu(2): error: expected an expression\nUsed 12 registers\n").empty());
  auto r = parsePtxasLog("ptxas info    : Compiling entry function 'k' for 'sm_80'\nptxas info    : Used 8 registers\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.at("k").registers, 8);
}

// NVRTC 13's report of a persistent kernel and its non-inlined rKernel
// wrappers: their frames follow the entry, under mangled names.
const char* kCallees = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'rammer_p0' for 'sm_90'
ptxas info    : Function properties for rammer_p0
ptxas         .     456 bytes stack frame, 80 bytes spill stores, 168 bytes spill loads
ptxas info    : Used 64 registers, used 1 barriers, 456 bytes cumulative stack size
ptxas info    : Compile time = 3008.967 ms
ptxas info    : Function properties for _ZN34_INTERNAL_00000000_4_k_cu_800d840a10rammer_fn0EiiPfPKS0_PKi
ptxas         .     0 bytes stack frame, 20 bytes spill stores, 28 bytes spill loads
ptxas info    : Function properties for _ZN34_INTERNAL_00000000_4_k_cu_800d840a11rammer_fn13EiiPfPKS0_PKi
ptxas         .     8 bytes stack frame, 360 bytes spill stores, 400 bytes spill loads
)";

TEST(PtxasLog, DeviceFunctionFramesAreReadUnderTheirOwnNames) {
  auto f = parsePtxasFunctions(kCallees);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f.at("rammer_fn0").spillStoreBytes, 20);
  EXPECT_EQ(f.at("rammer_fn0").spillLoadBytes, 28);
  EXPECT_EQ(f.at("rammer_fn13").stackBytes, 8);
  EXPECT_EQ(f.at("rammer_fn13").spillStoreBytes, 360);
  EXPECT_EQ(f.at("rammer_fn13").spillLoadBytes, 400);
  // The entry keeps its own frame only; the first log's helper is a function too.
  EXPECT_EQ(parsePtxasLog(kCallees).at("rammer_p0").spillStoreBytes, 80);
  auto g = parsePtxasFunctions(kLog);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g.at("helper").stackBytes, 64);
}

TEST(PtxasLog, FunctionBaseNamesFromManglings) {
  EXPECT_EQ(functionBaseName("_ZN34_INTERNAL_00000000_4_k_cu_800d840a10rammer_fn0EiiPfPKS0_PKi"), "rammer_fn0");
  EXPECT_EQ(functionBaseName("_Z6helperPf"), "helper");
  EXPECT_EQ(functionBaseName("rammer_p3"), "rammer_p3");
  EXPECT_EQ(functionBaseName("_Z999x"), "_Z999x");  // a length past the end: left as it is
}

}  // namespace
}  // namespace rammer::runtime

// Compiling ABI kernels with NVRTC (no GPU needed) and reading back their
// resources two ways: ptxas's log and the cubin's register records.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/runtime/cubin_registers.h"
#include "core/runtime/program_compiler.h"
#include "core/runtime/ptxas_log.h"
#include "tests/core/runtime/runtime_fixtures.h"
#include "tests/support/param_names.h"

namespace rammer::runtime {
namespace {

std::shared_ptr<const NvrtcCompiler> nvrtcOrNull() {
  auto n = NvrtcCompiler::load();
  return n.ok() ? n.value() : nullptr;
}

#define REQUIRE_NVRTC(n) \
  auto n = nvrtcOrNull(); \
  if (!n) GTEST_SKIP() << "skipped: no NVRTC"

class NvrtcArch : public ::testing::TestWithParam<std::string> {};

TEST_P(NvrtcArch, CompilesAnAbiProgramAndReadsItsResourcesTwoWays) {
  REQUIRE_NVRTC(nvrtc);
  auto c = compileProgram(*nvrtc, testing::handProgram(), GetParam());
  ASSERT_TRUE(c.ok()) << c.errorText();
  EXPECT_EQ(c->arch, GetParam());
  EXPECT_FALSE(c->cubin.empty());
  EXPECT_NE(c->ptx.find(".entry hand_program0"), std::string::npos);
  EXPECT_NE(c->log.find("for '" + GetParam() + "'"), std::string::npos) << c->log;
  ASSERT_EQ(c->kernels.size(), 2u) << c->log;
  for (const char* k : {"hand_program0", "hand_program1"}) {
    const KernelResourceUsage& u = c->kernels.at(k);
    EXPECT_GT(u.registers, 0) << k;
    EXPECT_LE(u.registers, 255) << k;
    ASSERT_TRUE(c->cubinRegisters.count(k)) << k;
    EXPECT_EQ(c->cubinRegisters.at(k), u.registers) << k << " (cubin record vs ptxas log)";
  }
  // `__shared__ float tile[128]` and nothing else.
  EXPECT_EQ(c->kernels.at("hand_program0").staticSharedBytes, 128 * 4);
  EXPECT_EQ(c->kernels.at("hand_program1").staticSharedBytes, 0);
  // __syncthreads() uses hardware barrier 0.
  EXPECT_EQ(c->kernels.at("hand_program0").barriers, 1);
}

INSTANTIATE_TEST_SUITE_P(Runtime, NvrtcArch, ::testing::Values("sm_80", "sm_90"), rammer::testing::ParamName());

// NVRTC keeps a compile cache (as the driver's JIT does), and ptxas reports
// nothing on a cache hit: the second compile of one source, in this process
// or a later one, must still know every kernel and its resources. Seen on an
// H200: every plan compiled a second time was refused as defining none of
// its kernels.
TEST(NvrtcCompile, ASecondCompileOfTheSameSourceStillReportsEveryKernel) {
  REQUIRE_NVRTC(nvrtc);
  auto first = compileProgram(*nvrtc, testing::handProgram(), "sm_90");
  ASSERT_TRUE(first.ok()) << first.errorText();
  auto second = compileProgram(*nvrtc, testing::handProgram(), "sm_90");
  ASSERT_TRUE(second.ok()) << second.errorText();
  ASSERT_EQ(second->kernels.size(), 2u) << second->log;
  for (const auto& [name, usage] : first->kernels) {
    ASSERT_TRUE(second->kernels.count(name)) << name;
    EXPECT_EQ(second->kernels.at(name).registers, usage.registers) << name;
    EXPECT_EQ(second->kernels.at(name).staticSharedBytes, usage.staticSharedBytes) << name;
  }
}

// Without ptxas's report (a compile served from the cache), every kernel is
// still known, with the cubin's registers and static shared memory.
TEST(NvrtcCompile, WithoutPtxasReportTheCubinNamesEveryKernelAndItsResources) {
  REQUIRE_NVRTC(nvrtc);
  auto c = compileProgram(*nvrtc, testing::handProgram(), "sm_90");
  ASSERT_TRUE(c.ok()) << c.errorText();
  const auto fromCubin = kernelResources("", c->cubinRegisters, c->cubin);
  ASSERT_EQ(fromCubin.size(), c->kernels.size());
  for (const auto& [name, usage] : c->kernels) {
    ASSERT_TRUE(fromCubin.count(name)) << name;
    EXPECT_EQ(fromCubin.at(name).registers, usage.registers) << name;
    // sm_90 cubins lay the 1 KB the system reserves per block out in front
    // of the kernel's own arrays: an upper bound, at most that much over.
    EXPECT_GE(fromCubin.at(name).staticSharedBytes, usage.staticSharedBytes) << name;
    EXPECT_LE(fromCubin.at(name).staticSharedBytes, usage.staticSharedBytes + 1024) << name;
  }
}

TEST(NvrtcCompile, CapsRegistersAndReportsSpills) {
  REQUIRE_NVRTC(nvrtc);
  // 32 live values per thread cannot fit in 24 registers.
  const char* src = R"(
extern "C" __global__ void heavy(const float* in, float* out) {
  float v[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) v[i] = in[threadIdx.x * 32 + i];
  float acc = 0.f;
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int i = 0; i < 32; ++i) { v[i] = v[i] * v[(i + r + 1) % 32] + 1.0f; acc += v[i]; }
  out[threadIdx.x] = acc;
})";
  auto out = nvrtc->compile(src, "heavy.cu", "sm_90", {"--maxrregcount=24"});
  ASSERT_TRUE(out.ok()) << out.errorText();
  auto usage = parsePtxasLog(out->log);
  ASSERT_TRUE(usage.count("heavy")) << out->log;
  EXPECT_LE(usage.at("heavy").registers, 24);
  EXPECT_GT(usage.at("heavy").spillStoreBytes, 0) << out->log;
  EXPECT_GT(usage.at("heavy").spillLoadBytes, 0) << out->log;
  EXPECT_GE(usage.at("heavy").stackBytes, usage.at("heavy").spillStoreBytes / 4);
  auto regs = readCubinRegisterCounts(out->cubin);
  ASSERT_TRUE(regs.ok()) << regs.errorText();
  EXPECT_EQ(regs->at("heavy"), usage.at("heavy").registers);
}

TEST(NvrtcCompile, ACompileErrorCarriesTheLog) {
  REQUIRE_NVRTC(nvrtc);
  codegen::GeneratedProgram p = testing::handProgram();
  p.source += "\n__device__ void broken() { int x = ; }\n";
  auto c = compileProgram(*nvrtc, p, "sm_90");
  ASSERT_FALSE(c.ok());
  const std::string e = c.errorText();
  EXPECT_NE(e.find("NVRTC could not compile rammer_program.cu for sm_90"), std::string::npos) << e;
  EXPECT_NE(e.find("error: expected an expression"), std::string::npos) << e;
  EXPECT_NE(e.find("int x = ;"), std::string::npos) << e;
  // The line is the generated source's own (the appended code's second line).
  const int line = static_cast<int>(std::count(testing::kHandKernelSource,
                                               testing::kHandKernelSource + std::strlen(testing::kHandKernelSource), '\n')) + 2;
  EXPECT_NE(e.find("rammer_program.cu(" + std::to_string(line) + "): error"), std::string::npos) << e;
}

TEST(NvrtcCompile, ALaunchOfAKernelTheSourceLacksIsAnError) {
  REQUIRE_NVRTC(nvrtc);
  codegen::GeneratedProgram p = testing::handProgram();
  p.launches[1].kernel = "hand_program7";
  auto c = compileProgram(*nvrtc, p, "sm_80");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.errorText().find("launch 1 names kernel 'hand_program7'"), std::string::npos) << c.errorText();
}

TEST(NvrtcCompile, HipProgramsAreRefused) {
  REQUIRE_NVRTC(nvrtc);
  codegen::GeneratedProgram p = testing::handProgram();
  p.target = codegen::Target::Hip;
  auto c = compileProgram(*nvrtc, p, "sm_90");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.errorText().find("HIP"), std::string::npos);
}

TEST(CubinRegisters, RejectsBytesThatAreNotACubin) {
  EXPECT_FALSE(readCubinRegisterCounts({}).ok());
  std::vector<char> text(128, 'x');
  EXPECT_FALSE(readCubinRegisterCounts(text).ok());
  // A valid ELF header whose section table points past the end.
  std::vector<char> elf(64, 0);
  elf[0] = 0x7f, elf[1] = 'E', elf[2] = 'L', elf[3] = 'F', elf[4] = 2, elf[5] = 1;
  elf[0x28] = 0x40;         // section table at 64: nothing there
  elf[0x3a] = 64;           // entry size
  elf[0x3c] = 3;            // three sections
  elf[0x3e] = 1;
  auto r = readCubinRegisterCounts(elf);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("outside the file"), std::string::npos) << r.errorText();
}

TEST(CubinRegisters, ATruncatedCubinIsAnErrorNotACrash) {
  REQUIRE_NVRTC(nvrtc);
  auto c = compileProgram(*nvrtc, testing::handProgram(), "sm_90");
  ASSERT_TRUE(c.ok()) << c.errorText();
  // Cuts that lose the ELF header's tail, part of the section table, or
  // its last entry (e_shoff at 0x28, e_shentsize/e_shnum at 0x3a/0x3c).
  const auto& bin = c->cubin;
  auto le = [&](size_t at, int width) {
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bin[at + static_cast<size_t>(i)]);
    return v;
  };
  const uint64_t tableEnd = le(0x28, 8) + le(0x3a, 2) * le(0x3c, 2);
  ASSERT_LE(tableEnd, bin.size());
  for (uint64_t keep : {uint64_t{40}, le(0x28, 8) + 1, tableEnd - 1}) {
    std::vector<char> cut(bin.begin(), bin.begin() + static_cast<std::ptrdiff_t>(keep));
    auto r = readCubinRegisterCounts(cut);
    EXPECT_FALSE(r.ok()) << "kept " << keep << " of " << bin.size() << " bytes";
  }
}

TEST(CudaArch, FromTheDeviceSpec) {
  device::DeviceSpec d;
  d.arch = "sm_80";
  EXPECT_EQ(cudaArch(d), "sm_80");
  d.arch = "gfx90a";
  d.computeMajor = 9;
  d.computeMinor = 0;
  EXPECT_EQ(cudaArch(d), "sm_90");
}

}  // namespace
}  // namespace rammer::runtime

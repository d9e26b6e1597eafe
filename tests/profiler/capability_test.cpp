// Capability detection says in words what is missing: no driver, no GPU,
// no CUPTI, CUPTI that cannot attach, counters restricted to administrators.
#include <gtest/gtest.h>

#include "profiler/capability.h"
#include "profiler/cupti_errors.h"
#include "tests/profiler/profiler_test_support.h"

namespace rammer::profiler {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ProfilerCapability, WithoutADriverSaysSoAndMeasuresNothing) {
  if (testing::cudaDriverInstalled()) GTEST_SKIP() << "a CUDA driver is installed here";
  const ProfilerCapability c = probeProfiler();
  EXPECT_FALSE(c.canRun());
  EXPECT_FALSE(c.kernelTimestamps);
  EXPECT_FALSE(c.counters);
  EXPECT_TRUE(c.message.starts_with("no CUDA driver (libcuda.so.1 not found)")) << c.message;
  EXPECT_TRUE(c.timestampsMessage.starts_with("unavailable: no CUDA driver (libcuda.so.1 not found)"))
      << c.timestampsMessage;
  EXPECT_EQ(c.countersMessage, c.timestampsMessage);
  if (c.cuptiLoaded) {
    EXPECT_GE(c.cuptiVersion, 130000u) << "the CUDA 13 CUPTI";
    EXPECT_TRUE(contains(c.message, "CUPTI (API " + std::to_string(c.cuptiVersion) +
                                        ") is installed but has no GPU to measure"))
        << c.message;
  }
}

TEST(ProfilerCapability, NamesTheDriverLibraryThatIsMissing) {
  ProfilerProbeOptions o;
  o.cuda.driverLibrary = "libcuda_not_here.so.1";
  const ProfilerCapability c = probeProfiler(o);
  EXPECT_FALSE(c.canRun());
  EXPECT_TRUE(c.message.starts_with("no CUDA driver (libcuda_not_here.so.1 not found)")) << c.message;
}

TEST(ProfilerCapability, NamesMissingCupti) {
  ProfilerProbeOptions o;
  o.cuda.driverLibrary = "libcuda_not_here.so.1";
  o.cuptiLibraries = {"libcupti_not_here.so"};
  const ProfilerCapability c = probeProfiler(o);
  EXPECT_FALSE(c.cuptiLoaded);
  EXPECT_TRUE(contains(c.message, "; CUPTI not found (tried libcupti_not_here.so)")) << c.message;
  EXPECT_FALSE(contains(c.message, "\n")) << "one paragraph";
}

TEST(CuptiLibrary, LoadErrorsListWhatWasTried) {
  auto none = CuptiLibrary::load({"libcupti_a.so", "/nowhere/libcupti.so"});
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(none.errors()[0].message.starts_with("CUPTI not found (tried libcupti_a.so, /nowhere/libcupti.so)"))
      << none.errorText();
  EXPECT_FALSE(CuptiLibrary::load({}).ok());
}

TEST(CuptiLibrary, LoadsTheToolkitsCuptiAndNamesItsResults) {
  ASSERT_TRUE(builtWithCupti()) << "the toolkit's CUPTI headers are on this machine";
  auto cupti = testing::loadCupti();
  if (!cupti) GTEST_SKIP() << "no libcupti";
  EXPECT_GE(cupti->version(), 130000u);
  EXPECT_EQ(cupti->resultName(cupti_code::kUnknown), "CUPTI_ERROR_UNKNOWN");
  EXPECT_EQ(cupti->resultName(cupti_code::kInsufficientPrivileges), "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_EQ(cupti->errorText(cupti_code::kUnknown, "cuptiActivityEnable"), "cuptiActivityEnable: CUPTI_ERROR_UNKNOWN");
}

TEST(CuptiErrors, SayWhichCapabilityIsMissing) {
  const std::string restricted =
      explainCuptiError(35, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", "cuptiProfilerGetCounterAvailability");
  EXPECT_EQ(restricted,
            "GPU performance counters are restricted to administrators (cuptiProfilerGetCounterAvailability: "
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES); run as root, or load the nvidia module with "
            "NVreg_RestrictProfilingToAdminUsers=0");
  EXPECT_TRUE(isPrivilegeError(35));
  EXPECT_TRUE(isPrivilegeError(40));
  EXPECT_FALSE(isPrivilegeError(999));
  EXPECT_EQ(explainCuptiError(999, "CUPTI_ERROR_UNKNOWN", "cuptiProfilerInitialize"),
            "CUPTI cannot attach to a GPU (cuptiProfilerInitialize: CUPTI_ERROR_UNKNOWN): no usable CUDA driver or "
            "GPU in this process");
  EXPECT_TRUE(contains(explainCuptiError(33, "X", "f"), "virtualized (vGPU)"));
  EXPECT_TRUE(contains(explainCuptiError(42, "X", "f"), "crypto-mining"));
  EXPECT_TRUE(contains(explainCuptiError(27, "X", "f"), "does not support this GPU"));
  EXPECT_EQ(explainCuptiError(7, "CUPTI_ERROR_INVALID_OPERATION", "cuptiRangeProfilerStart"),
            "cuptiRangeProfilerStart failed: CUPTI_ERROR_INVALID_OPERATION");
}

#ifdef RAMMER_FAKE_CUDA
// The stand-in driver is a "GPU" our runtime can use but CUPTI cannot
// (CUPTI looks for the real libcuda.so.1 itself): the probe must say that
// CUPTI cannot attach, per capability, and still allow the run.
TEST(ProfilerCapability, AGpuCuptiCannotAttachToIsReportedPerCapability) {
  if (testing::cudaDriverInstalled()) GTEST_SKIP() << "a CUDA driver is installed here: CUPTI would attach to it";
  ProfilerProbeOptions o;
  o.cuda.driverLibrary = RAMMER_FAKE_CUDA;
  const ProfilerCapability c = probeProfiler(o);
  if (!c.cuda.nvrtcLoaded) GTEST_SKIP() << "no NVRTC";
  if (!c.cuptiLoaded) GTEST_SKIP() << "no libcupti";
  EXPECT_TRUE(c.canRun()) << c.message;
  EXPECT_FALSE(c.kernelTimestamps);
  EXPECT_FALSE(c.counters);
  EXPECT_TRUE(c.timestampsMessage.starts_with("unavailable: CUPTI cannot attach to a GPU (cuptiActivityEnable"))
      << c.timestampsMessage;
  EXPECT_TRUE(c.countersMessage.starts_with("unavailable: CUPTI cannot attach to a GPU (cuptiProfilerInitialize"))
      << c.countersMessage;
  EXPECT_TRUE(c.message.starts_with("Fake GPU (compute 9.0, 4 SMs)")) << c.message;
  EXPECT_TRUE(contains(c.message, "; kernel timestamps: unavailable: CUPTI cannot attach")) << c.message;
  EXPECT_TRUE(contains(c.message, "; hardware counters: unavailable: CUPTI cannot attach")) << c.message;
}
#endif

}  // namespace
}  // namespace rammer::profiler

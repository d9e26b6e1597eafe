// Loading the driver and NVRTC with dlopen: a missing or wrong library is a
// clear message, never a crash.
#include <gtest/gtest.h>

#include "core/runtime/cuda_driver.h"
#include "core/runtime/cuda_probe.h"
#include "core/runtime/nvrtc_compiler.h"
#include "core/runtime/shared_library.h"

namespace rammer::runtime {
namespace {

TEST(RuntimeLibraries, MissingLibraryListsEveryCandidate) {
  auto lib = SharedLibrary::open({"librammer_missing_a.so", "librammer_missing_b.so.2"});
  ASSERT_FALSE(lib.ok());
  EXPECT_NE(lib.errorText().find("librammer_missing_a.so"), std::string::npos) << lib.errorText();
  EXPECT_NE(lib.errorText().find("librammer_missing_b.so.2"), std::string::npos) << lib.errorText();
}

TEST(RuntimeLibraries, OpensALibraryAndFindsItsSymbols) {
  auto lib = SharedLibrary::open({"librammer_missing.so", "libm.so.6"});
  ASSERT_TRUE(lib.ok()) << lib.errorText();
  EXPECT_EQ((*lib)->name(), "libm.so.6");
  auto cosine = reinterpret_cast<double (*)(double)>((*lib)->find("cos"));
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_EQ((*lib)->find("rammer_no_such_symbol"), nullptr);
}

TEST(RuntimeLibraries, MissingDriverSaysSo) {
  auto d = CudaDriver::load("libcuda_rammer_missing.so.1");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.errorText().find("no CUDA driver (libcuda_rammer_missing.so.1 not found)"), std::string::npos)
      << d.errorText();
}

TEST(RuntimeLibraries, ALibraryThatIsNotTheDriverNamesTheMissingEntryPoints) {
  auto d = CudaDriver::load("libm.so.6");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.errorText().find("missing cuInit"), std::string::npos) << d.errorText();
  EXPECT_NE(d.errorText().find("cuMemAlloc_v2"), std::string::npos) << d.errorText();
}

TEST(RuntimeLibraries, MissingNvrtcSaysSo) {
  auto n = NvrtcCompiler::load({"libnvrtc_rammer_missing.so"});
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.errorText().find("no NVRTC"), std::string::npos) << n.errorText();
  EXPECT_NE(n.errorText().find("libnvrtc_rammer_missing.so"), std::string::npos) << n.errorText();
}

TEST(RuntimeProbe, NoDriverAndNoNvrtcAreBothReported) {
  ProbeOptions o;
  o.driverLibrary = "libcuda_rammer_missing.so.1";
  o.nvrtcLibraries = {"libnvrtc_rammer_missing.so"};
  const CudaCapability c = probeCuda(o);
  EXPECT_FALSE(c.driverLoaded);
  EXPECT_FALSE(c.nvrtcLoaded);
  EXPECT_EQ(c.deviceCount, 0);
  EXPECT_FALSE(c.canRun());
  EXPECT_EQ(c.message.rfind("no CUDA driver (libcuda_rammer_missing.so.1 not found)", 0), 0u) << c.message;
  EXPECT_NE(c.message.find("no NVRTC"), std::string::npos) << c.message;
}

TEST(RuntimeProbe, DefaultProbeIsConsistent) {
  const CudaCapability c = probeCuda();
  EXPECT_FALSE(c.message.empty());
  if (!c.driverLoaded) {
    EXPECT_EQ(c.message.rfind("no CUDA driver (libcuda.so.1 not found)", 0), 0u) << c.message;
    EXPECT_FALSE(c.canRun());
  } else if (c.deviceCount == 0) {
    EXPECT_NE(c.message.find("no GPU"), std::string::npos) << c.message;
  } else {
    EXPECT_FALSE(c.deviceName.empty());
    EXPECT_GT(c.sms, 0);
    EXPECT_GE(c.computeMajor, 3);
  }
  if (c.nvrtcLoaded) {
    EXPECT_FALSE(c.nvrtcVersion.empty());
  }
}

}  // namespace
}  // namespace rammer::runtime

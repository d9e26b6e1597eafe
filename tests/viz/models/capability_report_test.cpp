// The status bar's capability line for each situation.
#include "viz/models/capability_report.h"

#include <gtest/gtest.h>

namespace rammer::viz {
namespace {

TEST(CapabilityReport, NoDriverSaysSimulated) {
  runtime::CudaCapability c;
  c.message = "no CUDA driver (libcuda.so.1 not found)";
  CapabilityReport r = describeCapability(c, std::nullopt);
  EXPECT_FALSE(r.gpu());
  EXPECT_EQ(r.text, "simulated: no GPU (no CUDA driver)");
  EXPECT_TRUE(r.detail.contains(QStringLiteral("libcuda.so.1 not found")));
  EXPECT_TRUE(r.detail.contains(QStringLiteral("emulator")));
}

TEST(CapabilityReport, DriverWithoutDeviceOrNvrtc) {
  runtime::CudaCapability c;
  c.driverLoaded = true;
  EXPECT_EQ(describeCapability(c, std::nullopt).text, "simulated: no GPU (CUDA driver but no device)");
  c.deviceCount = 1;
  EXPECT_EQ(describeCapability(c, std::nullopt).text, "simulated: no GPU (no NVRTC to compile kernels)");
}

TEST(CapabilityReport, GpuWithAndWithoutCounters) {
  runtime::CudaCapability c;
  c.driverLoaded = c.nvrtcLoaded = true;
  c.deviceCount = 1;
  c.deviceName = "NVIDIA H100";
  CuptiStatus full{true, true, {}};
  EXPECT_EQ(describeCapability(c, full).text, QStringLiteral("GPU: NVIDIA H100 \u2014 CUPTI counters available"));
  CuptiStatus restricted{true, false, QStringLiteral("counters need admin rights (INSUFFICIENT_PRIVILEGES)")};
  CapabilityReport r = describeCapability(c, restricted);
  EXPECT_EQ(r.text, QStringLiteral("GPU: NVIDIA H100 \u2014 CUPTI timings only (no counters)"));
  EXPECT_TRUE(r.detail.contains(QStringLiteral("INSUFFICIENT_PRIVILEGES")));
  EXPECT_EQ(describeCapability(c, std::nullopt).text, QStringLiteral("GPU: NVIDIA H100 \u2014 CUPTI not checked"));
}

}  // namespace
}  // namespace rammer::viz

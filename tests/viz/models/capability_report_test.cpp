// The status bar's capability line for each situation, and seeded inputs.
#include "viz/models/capability_report.h"

#include <gtest/gtest.h>

#include "tests/support/graph_builder.h"
#include "viz/models/seeded_inputs.h"

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

TEST(SeededInputs, DeterministicAndInRange) {
  testing::GraphBuilder b;
  ir::ValueId x = b.input("x", {2, 3});
  ir::ValueId y = b.op("Relu", "relu", {x});
  b.output(y);
  ASSERT_TRUE(b.infer().empty());
  ir::Graph g = b.graph();
  auto a = makeSeededInputs(g, 7);
  auto again = makeSeededInputs(g, 7);
  auto other = makeSeededInputs(g, 8);
  ASSERT_TRUE(a && again && other);
  ASSERT_EQ(a->size(), 1u);
  ASSERT_EQ((*a)[0].numel(), 6);
  bool differs = false;
  for (int64_t i = 0; i < 6; ++i) {
    const float v = (*a)[0].data<float>()[i];
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    EXPECT_EQ(v, (*again)[0].data<float>()[i]);
    differs |= v != (*other)[0].data<float>()[i];
  }
  EXPECT_TRUE(differs);
}

TEST(SeededInputs, UnknownDimsAreNamed) {
  testing::GraphBuilder b;
  ir::ValueId x = b.input("tokens", {-1, 4});
  b.output(b.op("Relu", "relu", {x}));
  b.infer();
  auto r = makeSeededInputs(b.graph(), 0);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.errors()[0].node, "tokens");
}

}  // namespace
}  // namespace rammer::viz

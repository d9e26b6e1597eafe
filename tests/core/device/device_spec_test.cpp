#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/device/device_spec.h"

using namespace rammer::device;

TEST(DeviceSpec, AllPresetsLoadAndRoundTrip) {
  const auto ids = presetIds();
  for (const char* want : {"h100", "h200", "a100", "v100", "mi50", "mi250x"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), want), ids.end()) << want;
  for (const auto& id : ids) {
    auto d = presetDevice(id);
    ASSERT_TRUE(d.ok()) << d.errorText();
    EXPECT_EQ(d->id, id);
    auto again = parseDeviceJson(deviceToJson(*d), "round trip");
    ASSERT_TRUE(again.ok()) << again.errorText();
    EXPECT_EQ(again->sms, d->sms);
    EXPECT_EQ(again->sharedPerBlockOptin, d->sharedPerBlockOptin);
    EXPECT_DOUBLE_EQ(again->memoryBandwidthGBs, d->memoryBandwidthGBs);
    EXPECT_DOUBLE_EQ(again->l2BandwidthGBs, d->l2BandwidthGBs);
  }
  EXPECT_EQ(presetDevice("H100")->sms, 132);  // case-insensitive
}

// The device fuzz target's findings (tests/data/fuzz-regressions, issue
// #18 item 5): numbers that do not fit an integer field are refused by
// name, not converted (undefined behaviour) or truncated.
TEST(DeviceSpec, FuzzFindingsAreClearErrors) {
  namespace fs = std::filesystem;
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(RAMMER_SOURCE_DIR "/tests/data/fuzz-regressions")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("device-", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto d = parseDeviceJson(text.str(), name);
    ASSERT_FALSE(d.ok()) << name;
    EXPECT_NE(d.errorText().find("must be an integer from"), std::string::npos) << d.errorText();
    EXPECT_NE(d.errorText().find(name), std::string::npos) << d.errorText();
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  // In range, an integer still reads.
  auto h100 = presetDevice("h100");
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ(h100->sms, 132);
}

TEST(DeviceSpec, ClearErrors) {
  auto unknown = presetDevice("tpu");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.errorText().find("unknown device 'tpu'"), std::string::npos);
  EXPECT_NE(unknown.errorText().find("h100"), std::string::npos);

  auto notJson = parseDeviceJson("{sms: 3", "my.json");
  ASSERT_FALSE(notJson.ok());
  EXPECT_NE(notJson.errorText().find("my.json"), std::string::npos);
  EXPECT_NE(notJson.errorText().find("not valid JSON"), std::string::npos);

  auto missing = parseDeviceJson(R"({"id":"x","name":"x","vendor":"nvidia","arch":"sm_90"})", "x.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.errorText().find("missing fields: sms"), std::string::npos);

  auto wrongType = parseDeviceJson(R"({"sms":"many"})", "w.json");
  ASSERT_FALSE(wrongType.ok());
  EXPECT_NE(wrongType.errorText().find("wrong type"), std::string::npos);

  auto noFile = loadDevice("/nonexistent/dev.json");
  ASSERT_FALSE(noFile.ok());
  EXPECT_NE(noFile.errorText().find("cannot open device file"), std::string::npos);
}

namespace {
// A minimal valid device file with `extra` fields appended.
std::string deviceText(const std::string& extra) {
  return R"({"id":"x","name":"x","vendor":"nvidia","arch":"sm_90","sms":4,"warp_size":32,
             "max_threads_per_block":1024,"max_threads_per_sm":2048,"max_blocks_per_sm":32,
             "regs_per_sm":65536,"shared_per_sm":65536,"shared_per_block":49152,
             "clock_ghz":1.5,"memory_bandwidth_gbs":1000,"peak_fp32_tflops":10)" +
         extra + "}";
}
}  // namespace

TEST(DeviceSpec, L2BandwidthIsOptionalAndRoundTrips) {
  auto absent = parseDeviceJson(deviceText(""), "a.json");
  ASSERT_TRUE(absent.ok()) << absent.errorText();
  EXPECT_EQ(absent->l2BandwidthGBs, 0);  // unknown

  auto given = parseDeviceJson(deviceText(R"(,"l2_bandwidth_gbs":4321.5)"), "g.json");
  ASSERT_TRUE(given.ok()) << given.errorText();
  EXPECT_DOUBLE_EQ(given->l2BandwidthGBs, 4321.5);
  EXPECT_NE(deviceToJson(*given).find("\"l2_bandwidth_gbs\""), std::string::npos);
  auto again = parseDeviceJson(deviceToJson(*given), "round trip");
  ASSERT_TRUE(again.ok()) << again.errorText();
  EXPECT_DOUBLE_EQ(again->l2BandwidthGBs, 4321.5);
}

TEST(DeviceSpec, NegativeL2FactsAreRefusedByName) {
  auto bw = parseDeviceJson(deviceText(R"(,"l2_bandwidth_gbs":-1)"), "n.json");
  ASSERT_FALSE(bw.ok());
  EXPECT_NE(bw.errorText().find("l2_bandwidth_gbs"), std::string::npos) << bw.errorText();
  EXPECT_NE(bw.errorText().find("n.json"), std::string::npos);
  auto bytes = parseDeviceJson(deviceText(R"(,"l2_bytes":-1)"), "n.json");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.errorText().find("l2_bytes"), std::string::npos) << bytes.errorText();
}

// Every preset knows its L2, and L2 outruns DRAM: the property a memory-tier
// model relies on (keeping an intermediate in L2 can only help).
TEST(DeviceSpec, PresetL2IsFasterThanDram) {
  for (const auto& id : presetIds()) {
    auto d = presetDevice(id);
    ASSERT_TRUE(d.ok()) << d.errorText();
    EXPECT_GT(d->l2Bytes, 0) << id;
    EXPECT_GT(d->l2BandwidthGBs, d->memoryBandwidthGBs) << id;
  }
}

// Per rKernel family, the share of the roofline it reaches on the device
// (issue #27 item 9): read, round-tripped, 1 for a family not listed, and
// refused when it is no positive number.
TEST(DeviceSpec, KernelEfficienciesAreReadAndRoundTrip) {
  auto h100 = presetDevice("h100");
  ASSERT_TRUE(h100.ok()) << h100.errorText();
  EXPECT_GT(h100->kernelEfficiency.size(), 5u);
  EXPECT_NE(h100->kernelEfficiencySource.find("measured"), std::string::npos);
  EXPECT_NE(h100->kernelEfficiencySource.find("2026-11-27 H100 lease"), std::string::npos) << "the lease it was fitted on";
  for (const auto& [family, e] : h100->kernelEfficiency) {
    EXPECT_GT(e, 0.0) << family;
    EXPECT_LE(e, 1.0) << family;
  }
  EXPECT_DOUBLE_EQ(h100->efficiencyOf("no such family"), 1.0);
  auto again = parseDeviceJson(deviceToJson(*h100), "round trip");
  ASSERT_TRUE(again.ok()) << again.errorText();
  EXPECT_EQ(again->kernelEfficiency, h100->kernelEfficiency);
  EXPECT_EQ(again->kernelEfficiencySource, h100->kernelEfficiencySource);
  // A preset no lease measured has none.
  EXPECT_TRUE(presetDevice("v100")->kernelEfficiency.empty());

  std::string json = deviceToJson(*h100);
  const size_t at = json.find("\"elementwise\"");
  ASSERT_NE(at, std::string::npos);
  const size_t colon = json.find(':', at), end = json.find_first_of(",}\n", colon);
  json.replace(colon + 1, end - colon - 1, " -0.5");
  auto bad = parseDeviceJson(json, "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errorText().find("kernel efficiency of 'elementwise'"), std::string::npos) << bad.errorText();
}

#include <gtest/gtest.h>

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
  }
  EXPECT_EQ(presetDevice("H100")->sms, 132);  // case-insensitive
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

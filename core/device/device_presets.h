#pragma once
// The JSON texts of resources/devices/*.json, compiled into the binary by
// CMake (device_presets_data.cpp is generated) so no file lookup is needed.
#include <string_view>
#include <vector>

namespace rammer::device {

struct PresetText {
  std::string_view id;
  std::string_view json;
};

const std::vector<PresetText>& devicePresetTexts();

}  // namespace rammer::device

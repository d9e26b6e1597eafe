#pragma once
// The JSON texts of resources/devices/*.json, compiled into the binary by
// CMake (rammer_embed_texts writes device_presets_data.cpp) so no file
// lookup is needed: one TextFile per preset, named by its id ("h100").
#include <vector>

#include "core/ir/text_file.h"

namespace rammer::device {

const std::vector<ir::TextFile>& devicePresetTexts();

}  // namespace rammer::device

#include "core/runtime/launch_mode.h"

namespace rammer::runtime {

const char* launchModeName(LaunchMode mode) { return mode == LaunchMode::Graph ? "graph" : "stream"; }

std::optional<LaunchMode> parseLaunchMode(std::string_view name) {
  if (name == "stream") return LaunchMode::Stream;
  if (name == "graph") return LaunchMode::Graph;
  return std::nullopt;
}

}  // namespace rammer::runtime

#include "core/pipeline/time_text.h"

#include <fmt/core.h>

namespace rammer::pipeline {

std::string fixedText(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

std::string timeText(double seconds) {
  return seconds < 1 ? fixedText(seconds * 1000, 1) + " ms" : fixedText(seconds, 2) + " s";
}

}  // namespace rammer::pipeline

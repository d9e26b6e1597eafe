#pragma once
// How the pipeline's log lines write times and numbers.
#include <chrono>
#include <string>

namespace rammer::pipeline {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
// `v` with `digits` decimals.
std::string fixedText(double v, int digits);
// "12.5 ms", "1.52 s".
std::string timeText(double seconds);

}  // namespace rammer::pipeline

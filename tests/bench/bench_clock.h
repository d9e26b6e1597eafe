#pragma once
// Wall and CPU clocks shared by the benchmarks.
#include <chrono>
#include <ctime>

namespace rammer::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// CPU time of this thread: on a shared machine it counts only our work.
inline double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace rammer::bench

#include "app/cli/cli_support.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

namespace rammer::cli {

Progress::Progress(const GlobalOptions& options) : quiet_(options.quiet), tty_(isatty(STDERR_FILENO) == 1) {}

const Progress& Progress::silent() {
  static const Progress quiet{GlobalOptions{true}};
  return quiet;
}

void Progress::status(const std::string& line) const {
  if (quiet_) return;
  fmt::print(stderr, "{}\n", line);
  std::fflush(stderr);
}

void Progress::steps(const std::string& what, size_t done, size_t total) {
  if (quiet_ || total == 0) return;
  if (tty_) {
    fmt::print(stderr, "\r{} {}/{}{}", what, done, total, done == total ? "\n" : "");
    std::fflush(stderr);
    return;
  }
  const size_t decile = done * 10 / total;
  if (done != total && decile == lastDecile_) return;
  lastDecile_ = decile;
  fmt::print(stderr, "{} {}/{}\n", what, done, total);
  std::fflush(stderr);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string formatSeconds(double seconds) {
  if (seconds < 0.01) return fmt::format("{:.3f} ms", seconds * 1e3);
  if (seconds < 1.0) return fmt::format("{:.1f} ms", seconds * 1e3);
  return fmt::format("{:.2f} s", seconds);
}

}  // namespace rammer::cli

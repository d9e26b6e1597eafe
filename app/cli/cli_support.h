#pragma once
// What every subcommand shares: global flags, the error type that maps to
// exit code 1, and progress reporting on stderr (results go to stdout).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

namespace rammer::cli {

struct GlobalOptions {
  bool quiet = false;  // no progress lines on stderr
};

// Bad input (missing file, malformed model, wrong inputs): "rammer: error:"
// and exit code 1. Usage errors are CLI11's and exit with 2.
class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parsed subcommand and what to do when it was chosen.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Progress lines on stderr. On a terminal node progress rewrites one line;
// elsewhere (logs, ctest) it prints about every 10% so logs stay short.
class Progress {
 public:
  explicit Progress(const GlobalOptions& options);
  // One that prints nothing (for steps whose caller already said what it does).
  static const Progress& silent();
  void status(const std::string& line) const;
  void steps(const std::string& what, size_t done, size_t total);

 private:
  bool quiet_;
  bool tty_;
  size_t lastDecile_ = 0;
};

// Seconds since `start`, for the summaries.
double secondsSince(std::chrono::steady_clock::time_point start);
// "850 ms", "1.52 s".
std::string formatSeconds(double seconds);

}  // namespace rammer::cli

#pragma once
// Runs another program (the system C++ compiler, a built host program) and
// collects what it printed. The child gets its own process group, so a
// timeout or a cancel kills it and everything it started; nothing the child
// does (a crash, a hang) can take rammer down with it.
#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace rammer::runtime {

struct SubprocessOptions {
  std::string workingDirectory;  // empty: rammer's
  double timeoutSeconds = 0;     // 0: none
  const std::atomic<bool>* cancel = nullptr;
  // Called on the calling thread with each complete line of the child's
  // output as it arrives (stdout and stderr merged), e.g. for progress.
  std::function<void(const std::string& line)> onLine;
  std::vector<std::string> environment;  // extra NAME=value entries
};

struct SubprocessResult {
  bool started = false;  // false: the program could not be run (`error` says why)
  std::string error;
  int exitCode = -1;     // when it exited
  int signal = 0;        // when a signal ended it
  bool timedOut = false;
  bool cancelled = false;
  std::string output;    // stdout and stderr, merged, in order
  double seconds = 0;

  bool ok() const { return started && !timedOut && !cancelled && signal == 0 && exitCode == 0; }
  // "exited with code 3", "killed by SIGSEGV", "timed out after 10 s", ...
  std::string describe() const;
};

// `argv[0]` is looked up in PATH when it has no '/'.
SubprocessResult runSubprocess(const std::vector<std::string>& argv, const SubprocessOptions& options = {});

// The full path of `program` in PATH (or itself when it names a file); empty when not found.
std::string findInPath(const std::string& program);

}  // namespace rammer::runtime

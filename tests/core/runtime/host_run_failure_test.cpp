// What a failed host program run is reported as (runtime::hostRunFailure):
// the program's own "error:" lines, else how it ended with its last lines,
// so a sanitizer's or the C++ runtime's abort is not just an exit code.
#include <gtest/gtest.h>

#include "core/runtime/host_execution.h"

namespace rammer::runtime {
namespace {

SubprocessResult ended(int exitCode, int signal, std::string output) {
  SubprocessResult r;
  r.started = true;
  r.exitCode = exitCode;
  r.signal = signal;
  r.output = std::move(output);
  return r;
}

TEST(HostRunFailure, TheProgramsErrorLinesAreTheDiagnostics) {
  const auto d = hostRunFailure(ended(3, 0, "model x\nerror: program 1 did not finish\n  vEU 4 waits\nmore\n"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "program 1 did not finish\n  vEU 4 waits");
}

TEST(HostRunFailure, WithoutErrorLinesTheLastLinesSayWhy) {
  const auto d = hostRunFailure(ended(66, 0,
                                      "model x\n\n==1==ERROR: ThreadSanitizer: allocator is out of memory\n"
                                      "==1==ERROR: ThreadSanitizer failed to allocate 0x1000\nERROR: Failed to mmap\n"
                                      "==================\n"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message,
            "the host program exited with code 66\n  model x\n  ==1==ERROR: ThreadSanitizer: allocator is out of "
            "memory\n  ==1==ERROR: ThreadSanitizer failed to allocate 0x1000\n  ERROR: Failed to mmap");
}

TEST(HostRunFailure, ACrashIsNamedBeforeItsErrorLines) {
  const auto d = hostRunFailure(ended(-1, 6, "error: a trap\n"));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NE(d[0].message.find("killed by signal 6"), std::string::npos) << d[0].message;
  EXPECT_EQ(d[1].message, "a trap");
}

}  // namespace
}  // namespace rammer::runtime

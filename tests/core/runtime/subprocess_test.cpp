// Running another program: its merged output line by line, its exit code or
// signal, a time limit and a cancel that stop it and what it started, and a
// program that is not there.
#include "core/runtime/subprocess.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace rammer::runtime {
namespace {

TEST(Subprocess, CollectsOutputAndExitCode) {
  std::vector<std::string> lines;
  SubprocessOptions o;
  o.onLine = [&](const std::string& l) { lines.push_back(l); };
  const SubprocessResult r = runSubprocess({"sh", "-c", "echo one; echo two >&2; exit 3"}, o);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exited with code 3");
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(r.output, "one\ntwo\n");
}

TEST(Subprocess, RunsInTheGivenFolder) {
  SubprocessOptions o;
  o.workingDirectory = "/";
  const SubprocessResult r = runSubprocess({"pwd"}, o);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.output, "/\n");
}

TEST(Subprocess, ASignalIsReported) {
  const SubprocessResult r = runSubprocess({"sh", "-c", "kill -SEGV $$"});
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.signal, 11);
  EXPECT_NE(r.describe().find("killed by signal 11"), std::string::npos) << r.describe();
}

TEST(Subprocess, ATimeLimitStopsTheProgramAndWhatItStarted) {
  SubprocessOptions o;
  o.timeoutSeconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  // The grandchild holds the pipe open: only killing the group ends the wait.
  const SubprocessResult r = runSubprocess({"sh", "-c", "sleep 30 & sleep 30"}, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timedOut);
  EXPECT_LT(seconds, 10);
  EXPECT_NE(r.describe().find("time limit"), std::string::npos);
}

TEST(Subprocess, ACancelStopsTheProgram) {
  std::atomic<bool> cancel{false};
  SubprocessOptions o;
  o.cancel = &cancel;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  const SubprocessResult r = runSubprocess({"sleep", "30"}, o);
  t.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_LT(r.seconds, 10);
}

TEST(Subprocess, AMissingProgramIsNamed) {
  const SubprocessResult r = runSubprocess({"no-such-program-here"});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("'no-such-program-here' was not found in PATH"), std::string::npos) << r.error;
  EXPECT_EQ(findInPath("sh").empty(), false);
  EXPECT_EQ(findInPath("/nonexistent/tool"), "");
}

}  // namespace
}  // namespace rammer::runtime

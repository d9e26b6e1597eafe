#include "core/runtime/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace rammer::runtime {

namespace {

bool executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Kills the child's whole process group and reaps the child.
int killAndReap(pid_t pid) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::string SubprocessResult::describe() const {
  if (!started) return "could not be started: " + error;
  if (cancelled) return "was cancelled";
  if (timedOut) return "was stopped after " + std::to_string(static_cast<int>(seconds + 0.5)) + " s (time limit)";
  if (signal) return std::string("was killed by signal ") + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
  return "exited with code " + std::to_string(exitCode);
}

std::string findInPath(const std::string& program) {
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos) return executable(program) ? program : std::string();
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = dirs.substr(begin, end - begin);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (executable(candidate)) return candidate;
    begin = end + 1;
  }
  return {};
}

SubprocessResult runSubprocess(const std::vector<std::string>& argv, const SubprocessOptions& options) {
  SubprocessResult r;
  if (argv.empty()) {
    r.error = "no program given";
    return r;
  }
  const std::string program = findInPath(argv[0]);
  if (program.empty()) {
    r.error = "'" + argv[0] + "' was not found" + (argv[0].find('/') == std::string::npos ? " in PATH" : "");
    return r;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!options.workingDirectory.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.workingDirectory.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a kill reaches its children too
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> envStrings;
  for (char** e = environ; e && *e; ++e) envStrings.emplace_back(*e);
  for (const std::string& e : options.environment) envStrings.push_back(e);
  std::vector<char*> env;
  for (std::string& e : envStrings) env.push_back(e.data());
  env.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    r.error = program + ": " + std::strerror(rc);
    return r;
  }
  r.started = true;

  std::string pending;
  auto flushLines = [&](bool all) {
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      if (options.onLine) options.onLine(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
    if (all && !pending.empty()) {
      if (options.onLine) options.onLine(pending);
      pending.clear();
    }
  };
  bool open = true;
  int status = 0;
  bool reaped = false;
  while (open) {
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, 50);
    if (ready > 0) {
      char buf[65536];
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) {
        r.output.append(buf, static_cast<size_t>(n));
        pending.append(buf, static_cast<size_t>(n));
        flushLines(false);
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        open = false;
      }
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (options.cancel && options.cancel->load()) {
      r.cancelled = true;
      status = killAndReap(pid);
      reaped = true;
      break;
    }
    if (options.timeoutSeconds > 0 && elapsed > options.timeoutSeconds) {
      r.timedOut = true;
      status = killAndReap(pid);
      reaped = true;
      break;
    }
  }
  ::close(fds[0]);
  flushLines(true);
  if (!reaped)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace rammer::runtime

#include "core/runtime/host_compiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "core/codegen/harness_source.h"
#include "core/codegen/host_sources.h"
#include "core/codegen/project_export.h"
#include "core/runtime/subprocess.h"

namespace rammer::runtime {

namespace fs = std::filesystem;

namespace {

// FNV-1a, 64 bits: a stable name for a build's inputs.
struct Hash {
  uint64_t h = 1469598103934665603ull;
  Hash& add(std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;  // separator: "ab","c" differs from "a","bc"
    return *this;
  }
  std::string hex() const { return fmt::format("{:016x}", h); }
};

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// The compiler's --version line, asked once per compiler.
std::string compilerIdentity(const std::string& compiler) {
  static std::mutex m;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(m);
  auto it = known.find(compiler);
  if (it != known.end()) return it->second;
  SubprocessOptions o;
  o.timeoutSeconds = 60;
  const SubprocessResult r = runSubprocess({compiler, "--version"}, o);
  return known[compiler] = compiler + " " + firstLine(r.output);
}

// A unique sibling of `p` to write into before renaming it into place, so
// builds running at once (parallel tests, two studios) never see a
// half-written file.
fs::path scratchFor(const fs::path& p) {
  static std::atomic<int> counter{0};
  return p.string() + fmt::format(".tmp{}-{}", ::getpid(), counter++);
}

bool writeFile(const fs::path& p, std::string_view text) {
  const fs::path scratch = scratchFor(p);
  {
    std::ofstream out(scratch, std::ios::binary);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) return false;
  }
  std::error_code ec;
  fs::rename(scratch, p, ec);
  return !ec;
}

// The compiler's error lines ("kernels.cpp:12:3: error: ..."), at most a few.
std::vector<ir::Diagnostic> compileErrors(const std::string& output, const fs::path& log, const std::string& what) {
  static const std::regex line(R"(^([^:\n]+):(\d+):(\d+): (?:fatal )?error: (.*)$)");
  std::vector<ir::Diagnostic> out;
  std::istringstream in(output);
  std::string l;
  int shown = 0, total = 0;
  while (std::getline(in, l)) {
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    ++total;
    if (shown++ < 5)
      out.push_back(ir::makeError(fmt::format("{}:{}:{}: {}", fs::path(m[1].str()).filename().string(), m[2].str(),
                                              m[3].str(), m[4].str())));
  }
  std::string head = what + " failed";
  if (total == 0) {
    // A linker or driver error: its last lines say what.
    std::string tail = output.size() > 1500 ? output.substr(output.size() - 1500) : output;
    head += ":\n" + tail;
  } else if (total > shown) {
    head += fmt::format(" ({} errors, the first {} follow)", total, shown);
  }
  head += "; full log: " + log.string();
  out.insert(out.begin(), ir::makeError(head));
  return out;
}

struct Step {
  std::vector<std::string> argv;
  fs::path output;  // renamed into place on success
  std::string what;
};

ir::Result<double> run(const Step& s, const fs::path& dir, const HostCompilerOptions& o) {
  const fs::path scratch = scratchFor(s.output);
  std::vector<std::string> argv = s.argv;
  argv.push_back("-o");
  argv.push_back(scratch.string());
  SubprocessOptions so;
  so.workingDirectory = dir.string();
  so.timeoutSeconds = o.timeoutSeconds;
  so.cancel = o.cancel;
  const SubprocessResult r = runSubprocess(argv, so);
  if (!r.ok()) {
    std::error_code ec;
    fs::remove(scratch, ec);
    const fs::path log = dir / (s.output.filename().string() + ".log");
    writeFile(log, "$ " + fmt::format("{}", fmt::join(argv, " ")) + "\n" + r.output);
    if (!r.started) return ir::makeError(s.what + ": the compiler " + r.describe());
    if (r.cancelled) return ir::makeError(s.what + ": cancelled");
    if (r.timedOut || r.signal) return ir::makeError(s.what + ": the compiler " + r.describe() + "; log: " + log.string());
    return compileErrors(r.output, log, s.what);
  }
  std::error_code ec;
  fs::rename(scratch, s.output, ec);
  if (ec) return ir::makeError("cannot move " + scratch.string() + " to " + s.output.string() + ": " + ec.message());
  return r.seconds;
}

}  // namespace

ir::Result<std::string> findHostCompiler(const std::string& requested) {
  std::vector<std::string> candidates;
  if (!requested.empty()) candidates.push_back(requested);
  else if (const char* e = std::getenv("RAMMER_HOST_CXX"); e && *e) candidates.push_back(e);
  else candidates = {"c++", "g++", "clang++"};
  for (const std::string& c : candidates)
    if (std::string p = findInPath(c); !p.empty()) return p;
  return ir::makeError(fmt::format(
      "no C++ compiler for the host target: {} not found{} (install g++, or set RAMMER_HOST_CXX)",
      fmt::join(candidates, ", "), requested.empty() && !std::getenv("RAMMER_HOST_CXX") ? " in PATH" : ""));
}

fs::path defaultHostCacheDir() {
  if (const char* e = std::getenv("RAMMER_HOST_CACHE"); e && *e) return e;
  if (const char* e = std::getenv("XDG_CACHE_HOME"); e && *e) return fs::path(e) / "rammer" / "host";
  if (const char* e = std::getenv("HOME"); e && *e) return fs::path(e) / ".cache" / "rammer" / "host";
  return fs::temp_directory_path() / "rammer-host-cache";
}

ir::Result<HostBuild> buildHostProgram(const codegen::GeneratedProgram& program, const HostCompilerOptions& o) {
  if (program.target != codegen::Target::Host)
    return ir::makeError("the program was generated for " + std::string(codegen::targetName(program.target)) +
                         ", not for the host target");
  auto compiler = findHostCompiler(o.compiler);
  if (!compiler) return compiler.errors();
  HostBuild b;
  b.compiler = compilerIdentity(*compiler);
  const std::vector<std::string> flags = codegen::hostCompileFlags(o.threadSanitizer);
  const fs::path cache = o.cacheDir.empty() ? defaultHostCacheDir() : o.cacheDir;

  // The harness and the runtime: compiled once per cache.
  const std::string harness = codegen::harnessSource(codegen::Target::Host);
  Hash common;
  common.add(b.compiler);
  for (const std::string& f : flags) common.add(f);
  common.add(harness);
  for (const ir::TextFile& f : codegen::hostSourceFiles()) common.add(f.name).add(f.text);
  const fs::path commonDir = cache / ("common-" + common.hex());

  const std::string kernels = codegen::kernelsFileSource(program);
  Hash key = common;
  key.add(kernels);
  b.key = key.hex();
  b.directory = cache / b.key;
  b.executable = b.directory / "prog";
  std::error_code ec;
  if (fs::exists(b.executable, ec)) {
    b.cached = true;
    return b;
  }
  fs::create_directories(commonDir, ec);
  fs::create_directories(b.directory, ec);
  if (ec) return ir::makeError("cannot create the host build cache " + b.directory.string() + ": " + ec.message());

  auto compile = [&](const fs::path& dir, const std::string& source, const fs::path& object, const std::string& what) {
    Step s;
    s.argv.push_back(*compiler);
    s.argv.insert(s.argv.end(), flags.begin(), flags.end());
    s.argv.insert(s.argv.end(), {"-I", commonDir.string(), "-c", source});
    s.output = object;
    s.what = what;
    return run(s, dir, o);
  };
  const auto start = std::chrono::steady_clock::now();
  const fs::path runtimeObject = commonDir / "rammer_host_runtime.o", harnessObject = commonDir / "main.o";
  if (!fs::exists(runtimeObject, ec) || !fs::exists(harnessObject, ec)) {
    if (o.status) o.status("compiling the host runtime and harness (once per cache)...");
    for (const ir::TextFile& f : codegen::hostSourceFiles())
      if (!writeFile(commonDir / f.name, f.text)) return ir::makeError("cannot write " + (commonDir / f.name).string());
    if (!writeFile(commonDir / "main.cpp", harness)) return ir::makeError("cannot write " + (commonDir / "main.cpp").string());
    if (!fs::exists(runtimeObject, ec))
      if (auto r = compile(commonDir, codegen::kHostRuntime, runtimeObject, "compiling the host runtime"); !r)
        return r.errors();
    if (!fs::exists(harnessObject, ec))
      if (auto r = compile(commonDir, "main.cpp", harnessObject, "compiling the host harness"); !r) return r.errors();
  }
  if (!writeFile(b.directory / "kernels.cpp", kernels))
    return ir::makeError("cannot write " + (b.directory / "kernels.cpp").string());
  if (o.status) o.status(fmt::format("compiling the kernels ({} KiB of C++)...", kernels.size() / 1024));
  // Its own object name: another process may be building the same plan.
  const fs::path kernelsObject = scratchFor(b.directory / "kernels.o");
  if (auto r = compile(b.directory, "kernels.cpp", kernelsObject, "compiling the generated kernels"); !r)
    return r.errors();
  Step link;
  link.argv.push_back(*compiler);
  link.argv.insert(link.argv.end(), flags.begin(), flags.end());
  link.argv.insert(link.argv.end(), {kernelsObject.string(), harnessObject.string(), runtimeObject.string(), "-lboost_context"});
  link.output = b.executable;
  link.what = "linking the host program";
  auto linked = run(link, b.directory, o);
  fs::remove(kernelsObject, ec);
  if (!linked) return linked.errors();
  b.compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return b;
}

}  // namespace rammer::runtime

#pragma once
// Builds a generated host program (codegen::Target::Host) into an
// executable with the system C++ compiler: the kernels, the harness and the
// host runtime (core/codegen/host/), linked with Boost.Context. Builds are
// cached by a hash of everything that goes into them (sources, flags, the
// compiler's identity): a plan built before starts at once, and the
// harness and runtime objects are compiled once per cache, not per model.
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"

namespace rammer::runtime {

struct HostCompilerOptions {
  // Empty: $RAMMER_HOST_CXX, else the first of c++, g++, clang++ in PATH.
  std::string compiler;
  // Empty: $RAMMER_HOST_CACHE, else $XDG_CACHE_HOME/rammer/host, else
  // ~/.cache/rammer/host.
  std::filesystem::path cacheDir;
  bool threadSanitizer = false;  // -fsanitize=thread (a build of its own)
  double timeoutSeconds = 900;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string&)> status;  // "compiling the kernels (1.2 MB)..."
};

struct HostBuild {
  std::filesystem::path executable;
  std::filesystem::path directory;  // holds the sources it was built from
  std::string compiler;             // path and its --version line
  std::string key;                  // the cache key (hex)
  bool cached = false;              // found built: nothing was compiled
  double compileSeconds = 0;        // spent compiling and linking now
};

// The compiler that would be used, or an error saying none was found.
ir::Result<std::string> findHostCompiler(const std::string& requested = {});

std::filesystem::path defaultHostCacheDir();

// Errors: no compiler (naming what was looked for), a compile error (the
// compiler's messages with file and line, and where the full log is), a
// timeout or a cancel, a program that is not for the host target.
ir::Result<HostBuild> buildHostProgram(const codegen::GeneratedProgram& program,
                                       const HostCompilerOptions& options = {});

}  // namespace rammer::runtime

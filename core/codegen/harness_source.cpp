#include "core/codegen/harness_source.h"

#include <stdexcept>

namespace rammer::codegen {

namespace {

// One of the fixed files (core/codegen/harness/), compiled in as text.
std::string fixedFile(std::string_view name) {
  const std::string_view text = ir::findTextFile(harnessFiles(), name);
  if (text.empty()) throw std::logic_error("the harness file " + std::string(name) + " is not compiled in");
  return std::string(text);
}

void replaceAll(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// The host target: the system C++ compiler with hostCompileFlags();
// Boost.Context for the fibers. RAMMER_TSAN=ON builds with ThreadSanitizer.
std::string hostCMakeLists() {
  auto join = [](const std::vector<std::string>& flags, const char* skip) {
    std::string s;
    for (const std::string& f : flags)
      if (f != skip && f != "-pthread") s += (s.empty() ? "" : " ") + f;
    return s;
  };
  std::string text = fixedFile("CMakeLists.host.txt");
  replaceAll(text, "@TSAN_FLAGS@", join(hostCompileFlags(true), "-std=c++20"));
  replaceAll(text, "@FLAGS@", join(hostCompileFlags(false), "-std=c++20"));
  return text;
}

}  // namespace

// The harness is plain C++ over a small CUDA/HIP runtime subset, so one text
// serves every target through its gpu* aliases. It reads everything
// model-specific from manifest.txt and the kernel table in the kernels file.
std::string harnessSource(Target target) {
  switch (target) {
    case Target::Hip: return "#define RAMMER_HIP 1\n" + fixedFile("main.cpp");
    case Target::Host: return "#define RAMMER_HOST 1\n" + fixedFile("main.cpp");
    case Target::Cuda: break;
  }
  return fixedFile("main.cpp");
}

std::string projectCMakeLists(Target target) {
  switch (target) {
    case Target::Hip: return fixedFile("CMakeLists.hip.txt");
    case Target::Host: return hostCMakeLists();
    case Target::Cuda: break;
  }
  return fixedFile("CMakeLists.cuda.txt");
}

std::vector<std::string> hostCompileFlags(bool threadSanitizer) {
  std::vector<std::string> f = {"-std=c++20", "-pthread"};
  if (threadSanitizer) {
    // -Wno-tsan: the fences are not what orders the protocol (acquire/release is).
    f.insert(f.end(), {"-O1", "-g", "-fsanitize=thread", "-Wno-tsan"});
  } else {
    // fmaf and the tiles' inner loops need the CPU's FMA and vector units;
    // -O3 vectorizes the per-thread register tiles (2x faster than -O2 on
    // resnext29 and lstm_tc, at up to 2x the compile time).
    f.insert(f.end(), {"-O3", "-march=native"});
  }
  return f;
}

}  // namespace rammer::codegen

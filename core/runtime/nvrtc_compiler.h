#pragma once
// NVRTC, loaded with dlopen: compiles a CUDA translation unit to a cubin
// for one GPU architecture. The compiler log always comes back, because it
// carries both the errors and ptxas's resource report.
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/runtime/shared_library.h"

namespace rammer::runtime {

struct NvrtcOutput {
  std::vector<char> cubin;
  std::string ptx;
  std::string log;
};

class NvrtcCompiler {
 public:
  // The soname of the toolkit this was written for first, then older and
  // unversioned names, then the toolkit's default folder (not always on
  // the loader's path).
  static std::vector<std::string> defaultCandidates();
  static ir::Result<std::shared_ptr<const NvrtcCompiler>> load(
      const std::vector<std::string>& candidates = defaultCandidates());

  std::string libraryName() const { return library_->name(); }
  // "13.0"
  std::string version() const;

  // Compiles `source` (named `fileName` in messages) for `arch` ("sm_90")
  // with ptxas's verbose resource report on. A compile error returns the
  // NVRTC log in the message.
  ir::Result<NvrtcOutput> compile(const std::string& source, const std::string& fileName, const std::string& arch,
                                  const std::vector<std::string>& extraOptions = {}) const;

 private:
  using Program = struct ProgramSt*;
  using Status = int;
  std::shared_ptr<SharedLibrary> library_;
  Status (*version_)(int*, int*) = nullptr;
  const char* (*errorString_)(Status) = nullptr;
  Status (*create_)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  Status (*compile_)(Program, int, const char* const*) = nullptr;
  Status (*destroy_)(Program*) = nullptr;
  Status (*logSize_)(Program, size_t*) = nullptr;
  Status (*log_)(Program, char*) = nullptr;
  Status (*cubinSize_)(Program, size_t*) = nullptr;
  Status (*cubin_)(Program, char*) = nullptr;
  Status (*ptxSize_)(Program, size_t*) = nullptr;
  Status (*ptx_)(Program, char*) = nullptr;
};

}  // namespace rammer::runtime

#pragma once
// libcupti, loaded with dlopen like the driver (never linked), so `rammer`
// starts on machines without it and says which capability is missing. The
// entry points are typed by the CUPTI headers in cupti_api.h, which only
// profiler/*.cpp (and tests) include; this header needs no CUDA toolkit.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/runtime/shared_library.h"

namespace rammer::profiler {

struct CuptiApi;  // cupti_api.h

class CuptiLibrary {
 public:
  // The CUDA 13 soname first, then the unversioned name, then the
  // toolkit's folders (not always on the loader's path).
  static std::vector<std::string> defaultCandidates();
  // Loads the first candidate that opens and binds every entry point the
  // profiler uses; the error lists the candidates tried or the missing
  // symbols. Also an error when this build has no CUPTI headers.
  static ir::Result<std::shared_ptr<const CuptiLibrary>> load(
      const std::vector<std::string>& candidates = defaultCandidates());
  ~CuptiLibrary();
  CuptiLibrary(const CuptiLibrary&) = delete;
  CuptiLibrary& operator=(const CuptiLibrary&) = delete;

  const std::string& libraryName() const { return library_->name(); }
  // CUPTI API version (130001 for CUDA 13.0 update 1).
  uint32_t version() const { return version_; }
  const CuptiApi& api() const { return *api_; }

  // "CUPTI_ERROR_UNKNOWN" for a CUptiResult.
  std::string resultName(int result) const;
  // "cuptiActivityEnable: CUPTI_ERROR_UNKNOWN".
  std::string errorText(int result, const std::string& call) const;

 private:
  CuptiLibrary() = default;
  std::shared_ptr<runtime::SharedLibrary> library_;
  std::unique_ptr<CuptiApi> api_;
  uint32_t version_ = 0;
};

// Whether this build was compiled against the CUPTI headers.
bool builtWithCupti();

}  // namespace rammer::profiler

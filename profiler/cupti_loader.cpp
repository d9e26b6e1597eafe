#include "profiler/cupti_loader.h"

#include <dlfcn.h>

#include "profiler/cupti_api.h"

namespace rammer::profiler {

bool builtWithCupti() {
#if RAMMER_HAVE_CUPTI_HEADERS
  return true;
#else
  return false;
#endif
}

std::vector<std::string> CuptiLibrary::defaultCandidates() {
  return {"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so",
          "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};
}

CuptiLibrary::~CuptiLibrary() = default;

ir::Result<std::shared_ptr<const CuptiLibrary>> CuptiLibrary::load(const std::vector<std::string>& candidates) {
#if RAMMER_HAVE_CUPTI_HEADERS
  auto lib = runtime::SharedLibrary::open(candidates);
  if (!lib) {
    std::string tried;
    for (const std::string& name : candidates) tried += (tried.empty() ? "" : ", ") + name;
    // First line for people, then dlerror's details.
    return ir::makeError("CUPTI not found (tried " + tried + ")\n" + lib.errorText());
  }
  std::shared_ptr<CuptiLibrary> c(new CuptiLibrary());
  c->library_ = std::move(lib).value();
  // Never unloaded: once used, CUPTI runs threads and hooks into the driver,
  // and may call our buffer callbacks at exit.
  dlopen(c->library_->name().c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  c->api_ = std::make_unique<CuptiApi>();
  CuptiApi& a = *c->api_;
  std::vector<std::string> missing;
  const runtime::SharedLibrary& l = *c->library_;
  l.bind(a.getVersion, "cuptiGetVersion", missing);
  l.bind(a.getResultString, "cuptiGetResultString", missing);
  l.bind(a.activityEnable, "cuptiActivityEnable", missing);
  l.bind(a.activityDisable, "cuptiActivityDisable", missing);
  l.bind(a.activityRegisterCallbacks, "cuptiActivityRegisterCallbacks", missing);
  l.bind(a.activityGetNextRecord, "cuptiActivityGetNextRecord", missing);
  l.bind(a.activityFlushAll, "cuptiActivityFlushAll", missing);
  l.bind(a.activityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords", missing);
  l.bind(a.profilerInitialize, "cuptiProfilerInitialize", missing);
  l.bind(a.profilerDeInitialize, "cuptiProfilerDeInitialize", missing);
  l.bind(a.profilerDeviceSupported, "cuptiProfilerDeviceSupported", missing);
  l.bind(a.profilerGetCounterAvailability, "cuptiProfilerGetCounterAvailability", missing);
  l.bind(a.deviceGetChipName, "cuptiDeviceGetChipName", missing);
  l.bind(a.hostInitialize, "cuptiProfilerHostInitialize", missing);
  l.bind(a.hostDeinitialize, "cuptiProfilerHostDeinitialize", missing);
  l.bind(a.hostGetSupportedChips, "cuptiProfilerHostGetSupportedChips", missing);
  l.bind(a.hostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics", missing);
  l.bind(a.hostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize", missing);
  l.bind(a.hostGetConfigImage, "cuptiProfilerHostGetConfigImage", missing);
  l.bind(a.hostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses", missing);
  l.bind(a.hostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues", missing);
  l.bind(a.rangeEnable, "cuptiRangeProfilerEnable", missing);
  l.bind(a.rangeDisable, "cuptiRangeProfilerDisable", missing);
  l.bind(a.rangeGetCounterDataSize, "cuptiRangeProfilerGetCounterDataSize", missing);
  l.bind(a.rangeCounterDataImageInitialize, "cuptiRangeProfilerCounterDataImageInitialize", missing);
  l.bind(a.rangeSetConfig, "cuptiRangeProfilerSetConfig", missing);
  l.bind(a.rangeStart, "cuptiRangeProfilerStart", missing);
  l.bind(a.rangeStop, "cuptiRangeProfilerStop", missing);
  l.bind(a.rangeDecodeData, "cuptiRangeProfilerDecodeData", missing);
  l.bind(a.rangeGetCounterDataInfo, "cuptiRangeProfilerGetCounterDataInfo", missing);
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    return ir::makeError(l.name() + " lacks " + list + " (a CUPTI older than CUDA 13?)");
  }
  // Version 0 stays when the call fails: only reported, never relied on.
  a.getVersion(&c->version_);
  return std::shared_ptr<const CuptiLibrary>(std::move(c));
#else
  (void)candidates;
  return ir::makeError("CUPTI not available: this build was made without the CUPTI headers");
#endif
}

std::string CuptiLibrary::resultName(int result) const {
#if RAMMER_HAVE_CUPTI_HEADERS
  const char* text = nullptr;
  if (api_->getResultString(static_cast<CUptiResult>(result), &text) == CUPTI_SUCCESS && text) return text;
#endif
  return "CUPTI error " + std::to_string(result);
}

std::string CuptiLibrary::errorText(int result, const std::string& call) const {
  return call + ": " + resultName(result);
}

}  // namespace rammer::profiler

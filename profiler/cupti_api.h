#pragma once
// The CUPTI entry points the profiler calls, typed from the toolkit's
// headers (only profiler/*.cpp and tests include this; it needs
// RAMMER_HAVE_CUPTI_HEADERS). Bound by CuptiLibrary::load.
#if RAMMER_HAVE_CUPTI_HEADERS
#include <cupti_activity.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

namespace rammer::profiler {

struct CuptiApi {
  decltype(&cuptiGetVersion) getVersion = nullptr;
  decltype(&cuptiGetResultString) getResultString = nullptr;
  // Activity API: kernel start/end per launch.
  decltype(&cuptiActivityEnable) activityEnable = nullptr;
  decltype(&cuptiActivityDisable) activityDisable = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) activityRegisterCallbacks = nullptr;
  decltype(&cuptiActivityGetNextRecord) activityGetNextRecord = nullptr;
  decltype(&cuptiActivityFlushAll) activityFlushAll = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) activityGetNumDroppedRecords = nullptr;
  // Profiler target side: the device and its counters.
  decltype(&cuptiProfilerInitialize) profilerInitialize = nullptr;
  decltype(&cuptiProfilerDeInitialize) profilerDeInitialize = nullptr;
  decltype(&cuptiProfilerDeviceSupported) profilerDeviceSupported = nullptr;
  decltype(&cuptiProfilerGetCounterAvailability) profilerGetCounterAvailability = nullptr;
  decltype(&cuptiDeviceGetChipName) deviceGetChipName = nullptr;
  // Profiler host side: metric configuration and evaluation (no GPU needed).
  decltype(&cuptiProfilerHostInitialize) hostInitialize = nullptr;
  decltype(&cuptiProfilerHostDeinitialize) hostDeinitialize = nullptr;
  decltype(&cuptiProfilerHostGetSupportedChips) hostGetSupportedChips = nullptr;
  decltype(&cuptiProfilerHostConfigAddMetrics) hostConfigAddMetrics = nullptr;
  decltype(&cuptiProfilerHostGetConfigImageSize) hostGetConfigImageSize = nullptr;
  decltype(&cuptiProfilerHostGetConfigImage) hostGetConfigImage = nullptr;
  decltype(&cuptiProfilerHostGetNumOfPasses) hostGetNumOfPasses = nullptr;
  decltype(&cuptiProfilerHostEvaluateToGpuValues) hostEvaluateToGpuValues = nullptr;
  // Range profiler.
  decltype(&cuptiRangeProfilerEnable) rangeEnable = nullptr;
  decltype(&cuptiRangeProfilerDisable) rangeDisable = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataSize) rangeGetCounterDataSize = nullptr;
  decltype(&cuptiRangeProfilerCounterDataImageInitialize) rangeCounterDataImageInitialize = nullptr;
  decltype(&cuptiRangeProfilerSetConfig) rangeSetConfig = nullptr;
  decltype(&cuptiRangeProfilerStart) rangeStart = nullptr;
  decltype(&cuptiRangeProfilerStop) rangeStop = nullptr;
  decltype(&cuptiRangeProfilerDecodeData) rangeDecodeData = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataInfo) rangeGetCounterDataInfo = nullptr;
};

}  // namespace rammer::profiler
#else
namespace rammer::profiler {
struct CuptiApi {};  // a build without CUPTI loads nothing
}  // namespace rammer::profiler
#endif

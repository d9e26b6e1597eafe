#include "profiler/range_profiler.h"

#include <fmt/core.h>

#include <algorithm>

#include "profiler/cupti_api.h"
#include "profiler/cupti_errors.h"

namespace rammer::profiler {

#if defined(__SANITIZE_ADDRESS__)
#define RAMMER_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RAMMER_ASAN_BUILD 1
#endif
#endif

bool counterHostUsable() {
#ifdef RAMMER_ASAN_BUILD
  return false;
#else
  return true;
#endif
}

namespace {
[[maybe_unused]] constexpr const char* kNoHostInSanitizerBuild =
    "hardware counters unavailable in a sanitizer build: CUPTI loads libnvperf_host.so with RTLD_DEEPBIND, which "
    "AddressSanitizer refuses";
}  // namespace

std::vector<std::string> programMetricNames() {
  return {kSmEfficiencyMetric, kWarpActivityMetric, kSmCyclesActiveMetric};
}

ir::Result<std::vector<ProgramCounters>> attributeRanges(const std::vector<RangeValues>& ranges,
                                                         const std::vector<codegen::KernelLaunch>& launches,
                                                         size_t numMetrics, int skipRuns) {
  const size_t n = launches.size();
  if (n == 0) return ir::makeError("no launches to attribute counter ranges to");
  if (ranges.empty() || ranges.size() % n != 0)
    return ir::makeError(fmt::format("CUPTI returned {} ranges for {} launches per run; the counters cannot be "
                                     "attributed to rPrograms",
                                     ranges.size(), n));
  std::vector<ProgramCounters> out;
  for (const codegen::KernelLaunch& l : launches)
    out.push_back(ProgramCounters{l.program, l.kernel, 0, std::vector<double>(numMetrics, 0.0)});
  const size_t runs = ranges.size() / n;
  const size_t skip = skipRuns > 0 && static_cast<size_t>(skipRuns) < runs ? static_cast<size_t>(skipRuns) : 0;
  for (size_t i = skip * n; i < ranges.size(); ++i) {
    if (ranges[i].size() != numMetrics)
      return ir::makeError(fmt::format("range {} has {} values, {} metrics were asked for", i, ranges[i].size(),
                                       numMetrics));
    ProgramCounters& p = out[i % n];
    ++p.runs;
    for (size_t m = 0; m < numMetrics; ++m) p.values[m] += ranges[i][m];
  }
  for (ProgramCounters& p : out)
    for (double& v : p.values) v /= std::max(1, p.runs);
  return out;
}

#if RAMMER_HAVE_CUPTI_HEADERS

namespace {

// A zeroed parameter struct with its size set, as every CUPTI call wants.
template <class P>
P params(size_t structSize) {
  P p{};
  p.structSize = structSize;
  return p;
}

std::string explain(const CuptiLibrary& c, int r, const std::string& call) {
  return explainCuptiError(r, c.resultName(r), call);
}

std::vector<const char*> cStrings(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  for (const std::string& s : v) out.push_back(s.c_str());
  return out;
}

// A host object (metric scheduling and evaluation for one chip), freed with it.
class HostObject {
 public:
  static ir::Result<std::unique_ptr<HostObject>> create(const CuptiLibrary& c, const std::string& chip,
                                                        const std::vector<uint8_t>& availability) {
    if (!counterHostUsable()) return ir::makeError(kNoHostInSanitizerBuild);
    auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    if (int r = c.api().hostInitialize(&p); r != CUPTI_SUCCESS)
      return ir::makeError(fmt::format("CUPTI cannot configure counters for chip '{}' ({})", chip,
                                       c.errorText(r, "cuptiProfilerHostInitialize")));
    return std::unique_ptr<HostObject>(new HostObject(c, p.pHostObject));
  }
  ~HostObject() {
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = object_;
    c_.api().hostDeinitialize(&p);
  }
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  CUpti_Profiler_Host_Object* get() const { return object_; }

 private:
  HostObject(const CuptiLibrary& c, CUpti_Profiler_Host_Object* o) : c_(c), object_(o) {}
  const CuptiLibrary& c_;
  CUpti_Profiler_Host_Object* object_;
};

// Schedules `metrics` on an initialized host object.
ir::Result<MetricConfig> configure(const CuptiLibrary& c, HostObject& host, const std::string& chip,
                                   const std::vector<std::string>& metrics) {
  if (metrics.empty()) return ir::makeError("no metrics to collect");
  const CuptiApi& api = c.api();
  // One at a time, so a refusal names the metric.
  for (const std::string& m : metrics) {
    const char* name = m.c_str();
    auto p = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    p.pHostObject = host.get();
    p.ppMetricNames = &name;
    p.numMetrics = 1;
    if (int r = api.hostConfigAddMetrics(&p); r != CUPTI_SUCCESS)
      return ir::makeError(fmt::format("metric '{}' is not available on {} ({})", m, chip,
                                       c.errorText(r, "cuptiProfilerHostConfigAddMetrics")));
  }
  auto sz = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  sz.pHostObject = host.get();
  if (int r = api.hostGetConfigImageSize(&sz); r != CUPTI_SUCCESS)
    return ir::makeError(c.errorText(r, "cuptiProfilerHostGetConfigImageSize"));
  MetricConfig out;
  out.chip = chip;
  out.metrics = metrics;
  out.image.resize(sz.configImageSize);
  auto img = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  img.pHostObject = host.get();
  img.configImageSize = out.image.size();
  img.pConfigImage = out.image.data();
  if (int r = api.hostGetConfigImage(&img); r != CUPTI_SUCCESS)
    return ir::makeError(c.errorText(r, "cuptiProfilerHostGetConfigImage"));
  auto passes = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = out.image.size();
  passes.pConfigImage = out.image.data();
  if (int r = api.hostGetNumOfPasses(&passes); r != CUPTI_SUCCESS)
    return ir::makeError(c.errorText(r, "cuptiProfilerHostGetNumOfPasses"));
  out.passes = passes.numOfPasses;
  return out;
}

// cuptiProfilerInitialize for a scope; the target-side calls need it.
class ProfilerScope {
 public:
  static ir::Result<std::unique_ptr<ProfilerScope>> open(const CuptiLibrary& c) {
    auto p = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (int r = c.api().profilerInitialize(&p); r != CUPTI_SUCCESS)
      return ir::makeError(explain(c, r, "cuptiProfilerInitialize"));
    return std::unique_ptr<ProfilerScope>(new ProfilerScope(c));
  }
  ~ProfilerScope() {
    auto p = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
    c_.api().profilerDeInitialize(&p);
  }
  ProfilerScope(const ProfilerScope&) = delete;
  ProfilerScope& operator=(const ProfilerScope&) = delete;

 private:
  explicit ProfilerScope(const CuptiLibrary& c) : c_(c) {}
  const CuptiLibrary& c_;
};

// Only after cuptiProfilerInitialize succeeded (CUPTI 13 crashes otherwise).
ir::Result<std::string> chipName(const CuptiLibrary& c, int deviceIndex) {
  auto p = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = static_cast<size_t>(deviceIndex);
  if (int r = c.api().deviceGetChipName(&p); r != CUPTI_SUCCESS || !p.pChipName)
    return ir::makeError(explain(c, r, "cuptiDeviceGetChipName"));
  return std::string(p.pChipName);
}

// The privilege check: restricted counters fail here.
ir::Result<std::vector<uint8_t>> counterAvailability(const CuptiLibrary& c, CUcontext context) {
  auto p = params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  p.ctx = context;
  if (int r = c.api().profilerGetCounterAvailability(&p); r != CUPTI_SUCCESS)
    return ir::makeError(explain(c, r, "cuptiProfilerGetCounterAvailability"));
  std::vector<uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  if (int r = c.api().profilerGetCounterAvailability(&p); r != CUPTI_SUCCESS)
    return ir::makeError(explain(c, r, "cuptiProfilerGetCounterAvailability"));
  return image;
}

const char* supportWord(CUpti_Profiler_Support_Level level) {
  switch (level) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    default: return "unknown";
  }
}

// Which part of the configuration keeps the range profiler off, or empty.
std::string unsupportedReason(const CuptiLibrary& c, int device) {
  auto p = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  p.cuDevice = device;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (int r = c.api().profilerDeviceSupported(&p); r != CUPTI_SUCCESS)
    return explain(c, r, "cuptiProfilerDeviceSupported");
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return {};
  const struct {
    const char* what;
    CUpti_Profiler_Support_Level level;
  } parts[] = {{"GPU architecture (compute capability 7.0 or newer needed)", p.architecture},
               {"SLI", p.sli},
               {"vGPU", p.vGpu},
               {"confidential computing", p.confidentialCompute},
               {"crypto-mining processor", p.cmp},
               {"WSL", p.wsl}};
  std::string why;
  for (const auto& part : parts)
    if (part.level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED && part.level != CUPTI_PROFILER_CONFIGURATION_UNKNOWN)
      why += fmt::format("{}{}: {}", why.empty() ? "" : ", ", part.what, supportWord(part.level));
  return "the range profiler does not run on this GPU configuration (" + (why.empty() ? "reason unknown" : why) + ")";
}

}  // namespace

ir::Result<std::vector<std::string>> supportedChips(const CuptiLibrary& c) {
  if (!counterHostUsable()) return ir::makeError(kNoHostInSanitizerBuild);
  auto p = params<CUpti_Profiler_Host_GetSupportedChips_Params>(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  if (int r = c.api().hostGetSupportedChips(&p); r != CUPTI_SUCCESS)
    return ir::makeError(c.errorText(r, "cuptiProfilerHostGetSupportedChips"));
  std::vector<std::string> out;
  for (size_t i = 0; i < p.numChips; ++i)
    if (p.ppChipNames[i]) out.emplace_back(p.ppChipNames[i]);
  return out;
}

ir::Result<MetricConfig> buildMetricConfig(const CuptiLibrary& c, const std::string& chip,
                                           const std::vector<std::string>& metrics,
                                           const std::vector<uint8_t>& availability) {
  auto host = HostObject::create(c, chip, availability);
  if (!host) return host.errors();
  return configure(c, **host, chip, metrics);
}

ir::Result<CounterSupport> probeCounters(const CuptiLibrary& c, void* context, int device, int deviceIndex,
                                         const std::vector<std::string>& metrics) {
  auto scope = ProfilerScope::open(c);
  if (!scope) return scope.errors();
  if (std::string why = unsupportedReason(c, device); !why.empty()) return ir::makeError(why);
  auto chip = chipName(c, deviceIndex);
  if (!chip) return chip.errors();
  auto availability = counterAvailability(c, static_cast<CUcontext>(context));
  if (!availability) return availability.errors();
  auto config = buildMetricConfig(c, *chip, metrics, *availability);
  if (!config) return config.errors();
  return CounterSupport{*chip, config->passes};
}

struct RangeProfiler::State {
  std::unique_ptr<ProfilerScope> scope;
  std::unique_ptr<HostObject> host;
  CUpti_RangeProfiler_Object* object = nullptr;
  std::vector<uint8_t> counterData;
  std::vector<const char*> metricNames;
  bool started = false;
};

RangeProfiler::RangeProfiler(std::shared_ptr<const CuptiLibrary> cupti) : cupti_(std::move(cupti)) {}

ir::Result<std::unique_ptr<RangeProfiler>> RangeProfiler::enable(std::shared_ptr<const CuptiLibrary> cupti,
                                                                 void* context, int deviceIndex,
                                                                 const std::vector<std::string>& metrics,
                                                                 size_t maxRanges) {
  if (!cupti) return ir::makeError("hardware counters unavailable: CUPTI is not loaded");
  const CuptiLibrary& c = *cupti;
  const CuptiApi& api = c.api();
  std::unique_ptr<RangeProfiler> rp(new RangeProfiler(cupti));
  rp->state_ = std::make_unique<State>();
  State& s = *rp->state_;
  auto scope = ProfilerScope::open(c);
  if (!scope) return scope.errors();
  s.scope = std::move(scope).value();
  auto chip = chipName(c, deviceIndex);
  if (!chip) return chip.errors();
  auto availability = counterAvailability(c, static_cast<CUcontext>(context));
  if (!availability) return availability.errors();
  auto host = HostObject::create(c, *chip, *availability);
  if (!host) return host.errors();
  s.host = std::move(host).value();
  auto config = configure(c, *s.host, *chip, metrics);
  if (!config) return config.errors();
  rp->config_ = std::move(config).value();
  s.metricNames = cStrings(rp->config_.metrics);

  auto en = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  en.ctx = static_cast<CUcontext>(context);
  if (int r = api.rangeEnable(&en); r != CUPTI_SUCCESS) return ir::makeError(explain(c, r, "cuptiRangeProfilerEnable"));
  s.object = en.pRangeProfilerObject;

  const size_t ranges = std::max<size_t>(maxRanges, 1);
  auto size = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = s.object;
  size.pMetricNames = s.metricNames.data();
  size.numMetrics = s.metricNames.size();
  size.maxNumOfRanges = ranges;
  size.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
  if (int r = api.rangeGetCounterDataSize(&size); r != CUPTI_SUCCESS)
    return ir::makeError(c.errorText(r, "cuptiRangeProfilerGetCounterDataSize"));
  s.counterData.resize(size.counterDataSize);
  auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = s.object;
  init.counterDataSize = s.counterData.size();
  init.pCounterData = s.counterData.data();
  if (int r = api.rangeCounterDataImageInitialize(&init); r != CUPTI_SUCCESS)
    return ir::makeError(c.errorText(r, "cuptiRangeProfilerCounterDataImageInitialize"));

  auto set = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = s.object;
  set.configSize = rp->config_.image.size();
  set.pConfig = rp->config_.image.data();
  set.counterDataImageSize = s.counterData.size();
  set.pCounterDataImage = s.counterData.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = CUPTI_KernelReplay;
  set.maxRangesPerPass = ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  if (int r = api.rangeSetConfig(&set); r != CUPTI_SUCCESS)
    return ir::makeError(explain(c, r, "cuptiRangeProfilerSetConfig"));
  return rp;
}

RangeProfiler::~RangeProfiler() {
  if (!state_) return;
  const CuptiApi& api = cupti_->api();
  if (state_->started) {
    auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = state_->object;
    api.rangeStop(&stop);
  }
  if (state_->object) {
    auto p = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = state_->object;
    api.rangeDisable(&p);
  }
  state_->host.reset();
  state_->scope.reset();
}

ir::Result<bool> RangeProfiler::start() {
  auto p = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = state_->object;
  if (int r = cupti_->api().rangeStart(&p); r != CUPTI_SUCCESS)
    return ir::makeError(explain(*cupti_, r, "cuptiRangeProfilerStart"));
  state_->started = true;
  return true;
}

ir::Result<bool> RangeProfiler::stop() {
  auto p = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = state_->object;
  if (int r = cupti_->api().rangeStop(&p); r != CUPTI_SUCCESS)
    return ir::makeError(explain(*cupti_, r, "cuptiRangeProfilerStop"));
  state_->started = false;
  if (!p.isAllPassSubmitted)
    return ir::makeError(fmt::format("the metrics need {} replay passes and CUPTI did not submit them all in kernel "
                                     "replay",
                                     config_.passes));
  return true;
}

ir::Result<std::vector<RangeValues>> RangeProfiler::decode() {
  const CuptiApi& api = cupti_->api();
  State& s = *state_;
  auto dec = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  dec.pRangeProfilerObject = s.object;
  if (int r = api.rangeDecodeData(&dec); r != CUPTI_SUCCESS)
    return ir::makeError(cupti_->errorText(r, "cuptiRangeProfilerDecodeData"));
  if (dec.numOfRangeDropped > 0)
    return ir::makeError(fmt::format("CUPTI dropped {} ranges (more launches than the counter data holds)",
                                     dec.numOfRangeDropped));
  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = s.counterData.data();
  info.counterDataImageSize = s.counterData.size();
  if (int r = api.rangeGetCounterDataInfo(&info); r != CUPTI_SUCCESS)
    return ir::makeError(cupti_->errorText(r, "cuptiRangeProfilerGetCounterDataInfo"));
  std::vector<RangeValues> out;
  for (size_t i = 0; i < info.numTotalRanges; ++i) {
    RangeValues values(s.metricNames.size(), 0.0);
    auto ev = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    ev.pHostObject = s.host->get();
    ev.pCounterDataImage = s.counterData.data();
    ev.counterDataImageSize = s.counterData.size();
    ev.rangeIndex = i;
    ev.ppMetricNames = s.metricNames.data();
    ev.numMetrics = s.metricNames.size();
    ev.pMetricValues = values.data();
    if (int r = api.hostEvaluateToGpuValues(&ev); r != CUPTI_SUCCESS)
      return ir::makeError(cupti_->errorText(r, fmt::format("cuptiProfilerHostEvaluateToGpuValues(range {})", i)));
    out.push_back(std::move(values));
  }
  return out;
}

#else  // built without the CUPTI headers

namespace {
ir::Diagnostic noHeaders() {
  return ir::makeError("hardware counters unavailable: this build was made without the CUPTI headers");
}
}  // namespace

ir::Result<std::vector<std::string>> supportedChips(const CuptiLibrary&) { return noHeaders(); }
ir::Result<MetricConfig> buildMetricConfig(const CuptiLibrary&, const std::string&, const std::vector<std::string>&,
                                           const std::vector<uint8_t>&) {
  return noHeaders();
}
ir::Result<CounterSupport> probeCounters(const CuptiLibrary&, void*, int, int, const std::vector<std::string>&) {
  return noHeaders();
}
struct RangeProfiler::State {};
RangeProfiler::RangeProfiler(std::shared_ptr<const CuptiLibrary> cupti) : cupti_(std::move(cupti)) {}
ir::Result<std::unique_ptr<RangeProfiler>> RangeProfiler::enable(std::shared_ptr<const CuptiLibrary>, void*, int,
                                                                 const std::vector<std::string>&, size_t) {
  return noHeaders();
}
RangeProfiler::~RangeProfiler() = default;
ir::Result<bool> RangeProfiler::start() { return noHeaders(); }
ir::Result<bool> RangeProfiler::stop() { return noHeaders(); }
ir::Result<std::vector<RangeValues>> RangeProfiler::decode() { return noHeaders(); }

#endif

}  // namespace rammer::profiler

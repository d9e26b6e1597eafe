#include "profiler/capability.h"

#include <fmt/core.h>

#include "profiler/activity_tracer.h"
#include "profiler/range_profiler.h"

namespace rammer::profiler {

namespace {

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// Fills the Activity and counter fields where a GPU is present.
void probeDevice(ProfilerCapability& c, const CuptiLibrary& cupti, const ProfilerProbeOptions& o) {
  auto driver = runtime::CudaDriver::load(o.cuda.driverLibrary);
  if (!driver) {
    c.timestampsMessage = c.countersMessage = "unavailable: " + firstLine(driver.errorText());
    return;
  }
  const runtime::CudaDriver& d = **driver;
  runtime::cu::Device dev = 0;
  runtime::cu::Context ctx = nullptr;
  if (runtime::cu::Result r = d.cuInit(0); r != runtime::cu::kSuccess) {
    c.timestampsMessage = c.countersMessage = "unavailable: " + d.errorText(r, "cuInit");
    return;
  }
  if (runtime::cu::Result r = d.cuDeviceGet(&dev, 0); r != runtime::cu::kSuccess) {
    c.timestampsMessage = c.countersMessage = "unavailable: " + d.errorText(r, "cuDeviceGet");
    return;
  }
  if (runtime::cu::Result r = d.cuDevicePrimaryCtxRetain(&ctx, dev); r != runtime::cu::kSuccess) {
    c.timestampsMessage = c.countersMessage = "unavailable: " + d.errorText(r, "cuDevicePrimaryCtxRetain");
    return;
  }
  d.cuCtxSetCurrent(ctx);

  if (auto ok = checkActivityApi(cupti)) {
    c.kernelTimestamps = true;
    c.timestampsMessage = "CUPTI activity records (CONCURRENT_KERNEL)";
  } else {
    c.timestampsMessage = "unavailable: " + firstLine(ok.errorText());
  }
  if (auto counters = probeCounters(cupti, ctx, dev, 0, programMetricNames())) {
    c.counters = true;
    c.chip = counters->chip;
    c.counterPasses = counters->passes;
    c.countersMessage = fmt::format("CUPTI range profiler on {} ({} replay pass{})", c.chip, c.counterPasses,
                                    c.counterPasses == 1 ? "" : "es");
  } else {
    c.countersMessage = "unavailable: " + firstLine(counters.errorText());
  }
  d.cuDevicePrimaryCtxRelease(dev);
}

}  // namespace

ProfilerCapability probeProfiler(const ProfilerProbeOptions& o) {
  ProfilerCapability c;
  c.cuda = runtime::probeCuda(o.cuda);
  auto cupti = CuptiLibrary::load(o.cuptiLibraries);
  if (cupti) {
    c.cuptiLoaded = true;
    c.cuptiLibrary = (*cupti)->libraryName();
    c.cuptiVersion = (*cupti)->version();
  }
  if (!c.cuda.canRun()) {
    // Nothing to measure without a GPU, whatever CUPTI could do.
    c.timestampsMessage = c.countersMessage = "unavailable: " + c.cuda.message;
    c.message = c.cuda.message + (c.cuptiLoaded ? fmt::format("; CUPTI (API {}) is installed but has no GPU to measure",
                                                              c.cuptiVersion)
                                                : "; " + firstLine(cupti.errorText()));
    return c;
  }
  if (!cupti) {
    c.timestampsMessage = c.countersMessage = "unavailable: " + firstLine(cupti.errorText());
  } else {
    probeDevice(c, **cupti, o);
  }
  c.message = fmt::format("{}; kernel timestamps: {}; hardware counters: {}", c.cuda.message, c.timestampsMessage,
                          c.countersMessage);
  return c;
}

}  // namespace rammer::profiler

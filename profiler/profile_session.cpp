#include "profiler/profile_session.h"

#include <fmt/core.h>

#include "core/runtime/cuda_build.h"
#include "core/runtime/timing_decoder.h"
#include "profiler/activity_tracer.h"
#include "profiler/metric_estimates.h"
#include "profiler/profile_recorder.h"
#include "profiler/range_profiler.h"

namespace rammer::profiler {

namespace {

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

runtime::GpuRunOptions runOptions(int warmup, int repeat, const ProfileOptions& o) {
  runtime::GpuRunOptions r;
  r.warmup = warmup;
  r.repeat = repeat;
  r.watchdogSeconds = o.watchdogSeconds;
  return r;
}

// Counters per launch from one run under the range profiler (after one
// warm-up run, whose ranges are dropped), or the reason there are none.
ir::Result<std::vector<ProgramCounters>> collectCounters(const ProfileTarget& t, const ir::Graph& graph,
                                                         const ProfileBuild& plain,
                                                         const std::vector<ir::Tensor>& inputs,
                                                         const ProfileOptions& o) {
  const runtime::CudaDriver& d = t.driver;
  runtime::cu::Device dev = 0;
  runtime::cu::Context ctx = nullptr;
  if (runtime::cu::Result r = d.cuDeviceGet(&dev, 0); r != runtime::cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuDeviceGet"));
  // The runner's context: the device's primary one, shared.
  if (runtime::cu::Result r = d.cuDevicePrimaryCtxRetain(&ctx, dev); r != runtime::cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuDevicePrimaryCtxRetain"));
  struct Release {
    const runtime::CudaDriver& d;
    runtime::cu::Device dev;
    ~Release() { d.cuDevicePrimaryCtxRelease(dev); }
  } release{d, dev};
  d.cuCtxSetCurrent(ctx);

  const std::vector<std::string> metrics = programMetricNames();
  constexpr int kRuns = 2;  // one warm-up, one measured
  const size_t launches = plain.program.launches.size();
  auto rp = RangeProfiler::enable(t.cupti, ctx, 0, metrics, launches * kRuns);
  if (!rp) return rp.errors();
  if (auto ok = (*rp)->start(); !ok) return ok.errors();
  auto run = t.runner.run(graph, plain.program, plain.compiled, inputs, runOptions(kRuns - 1, 1, o));
  auto stopped = (*rp)->stop();
  if (!run) return run.errors();
  if (!stopped) return stopped.errors();
  auto ranges = (*rp)->decode();
  if (!ranges) return ranges.errors();
  return attributeRanges(*ranges, plain.program.launches, metrics.size(), kRuns - 1);
}

}  // namespace

ir::Result<ProfileResult> profileBuilds(const ProfileTarget& t, const schedule::Plan& plan, const ir::Graph& graph,
                                        const ProfileBuild& plain, const ProfileBuild& instrumented,
                                        const std::vector<ir::Tensor>& inputs, const ProfileOptions& o) {
  if (o.repeat < 1) return ir::makeError("repeat must be at least 1");
  if (instrumented.program.numTimedEvents <= 0)
    return ir::makeError("the instrumented build records no rTask timings");
  ProfileResult out;
  out.deviceName = t.runner.deviceName();
  out.arch = t.runner.arch();
  out.sms = t.runner.sms();
  out.capability = t.capability;
  const auto& launches = plain.program.launches;

  // 1. Timed runs, with kernel records where CUPTI can take them.
  std::unique_ptr<ActivityTracer> tracer;
  if (!o.useActivity) {
    out.timestampsNote = "not asked for";
  } else if (!t.capability.kernelTimestamps || !t.cupti) {
    out.timestampsNote = t.capability.timestampsMessage;
  } else if (auto started = ActivityTracer::start(t.cupti)) {
    tracer = std::move(started).value();
  } else {
    out.timestampsNote = "unavailable: " + firstLine(started.errorText());
  }
  auto timed = t.runner.run(graph, plain.program, plain.compiled, inputs, runOptions(o.warmup, o.repeat, o));
  std::vector<LaunchTimes> launchTimes;
  if (tracer) {
    auto records = tracer->stop();
    if (!records) {
      out.timestampsNote = "unavailable: " + firstLine(records.errorText());
    } else {
      KernelAttribution a = attributeKernelRecords(std::move(records).value(), launches, o.warmup);
      launchTimes = std::move(a.launches);
      out.timestampsNote = fmt::format("CUPTI activity records, {} timed runs", o.repeat);
      if (tracer->dropped() > 0) out.timestampsNote += fmt::format(" ({} records dropped)", tracer->dropped());
    }
  }
  if (!timed) return timed.errors();
  out.latencyUs = timed->latencyUs;

  // 2. One instrumented run: per-rTask times.
  auto recorded = t.runner.run(graph, instrumented.program, instrumented.compiled, inputs, runOptions(1, 1, o));
  if (!recorded) return recorded.errors();
  auto trace = runtime::decodeTiming(plan, instrumented.program, recorded->timing, {out.deviceName, out.sms});
  if (!trace) return trace.errors();
  out.trace = std::move(trace).value();
  if (out.trace.tasks.empty())
    return ir::makeError(fmt::format("no rTask recorded a time in the instrumented run ({} unrecorded); nothing to "
                                     "put in the profile database",
                                     static_cast<int64_t>(out.trace.metrics.count("unrecorded_rtasks")
                                                              ? out.trace.metrics.at("unrecorded_rtasks")
                                                              : 0)));

  // 3. Counters.
  std::vector<ProgramCounters> counters;
  if (!o.useCounters) {
    out.countersNote = "not asked for";
  } else if (!t.capability.counters || !t.cupti) {
    out.countersNote = t.capability.countersMessage;
  } else if (auto c = collectCounters(t, graph, plain, inputs, o)) {
    counters = std::move(c).value();
    out.countersNote = fmt::format("CUPTI range profiler on {}", t.capability.chip);
  } else {
    out.countersNote = "unavailable: " + firstLine(c.errorText());
  }

  // Per launch: measurements, else labelled estimates.
  std::vector<sim::TimeStats> kernelTimeByProgram(plan.programs.size());
  for (size_t i = 0; i < launches.size(); ++i) {
    const codegen::KernelLaunch& l = launches[i];
    ProgramProfile p;
    p.program = l.program;
    p.kernel = l.kernel;
    p.gridBlocks = l.gridBlocks;
    p.blockThreads = l.blockThreads;
    p.persistent = l.persistent;
    if (i < timed->blocksPerSM.size()) p.blocksPerSM = timed->blocksPerSM[i];
    if (i < timed->registers.size()) p.registers = timed->registers[i];
    if (i < launchTimes.size()) p.kernelTime = sim::summarizeTimes(launchTimes[i].us);
    for (const sim::ProgramEvent& e : out.trace.programs)
      if (e.program == l.program) p.rtaskSpanUs = e.endUs - e.startUs;
    if (l.program >= 0 && static_cast<size_t>(l.program) < kernelTimeByProgram.size())
      kernelTimeByProgram[static_cast<size_t>(l.program)] = p.kernelTime;

    const double kernelUs = p.kernelTime.samples > 0 ? p.kernelTime.medianUs : p.rtaskSpanUs;
    const MetricEstimates est = estimateLaunchMetrics(out.trace, l, p.blocksPerSM, out.sms, kernelUs, plan.device);
    if (i < counters.size() && counters[i].values.size() == 3) {
      const char* src = "CUPTI range profiler";
      p.smEfficiencyPct = {counters[i].values[0], true, src};
      p.warpActivityPct = {counters[i].values[1], true, src};
      p.smCyclesActive = {counters[i].values[2], true, src};
    } else {
      p.smEfficiencyPct = {est.smEfficiencyPct, false, "estimate: SM time in rTasks (rTask timestamps)"};
      p.warpActivityPct = {est.warpActivityPct, false, "estimate: resident warps (occupancy)"};
      p.smCyclesActive = {est.smCyclesActive, false,
                          p.kernelTime.samples > 0 ? "estimate: CUPTI kernel time x clock"
                                                   : "estimate: rTask span x clock"};
    }
    out.programs.push_back(std::move(p));
  }
  out.db = recordTaskTimes(plan, out.trace, kernelTimeByProgram, out.deviceName);
  return out;
}

ir::Result<ProfileResult> profilePlan(schedule::Plan& plan, const ir::Graph& given,
                                      const std::vector<ir::Tensor>& inputs, const ProfileOptions& o) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  const ProfilerCapability capability = probeProfiler(o.probe);
  if (!capability.canRun()) return ir::makeError("cannot profile on the GPU: " + capability.message);
  auto driver = runtime::CudaDriver::load(o.probe.cuda.driverLibrary);
  if (!driver) return driver.errors();
  auto nvrtc = runtime::NvrtcCompiler::load(o.probe.cuda.nvrtcLibraries);
  if (!nvrtc) return nvrtc.errors();
  std::shared_ptr<const CuptiLibrary> cupti;
  if (capability.kernelTimestamps || capability.counters)
    if (auto c = CuptiLibrary::load(o.probe.cuptiLibraries)) cupti = std::move(c).value();
  auto runner = runtime::CudaRunner::open(*driver);
  if (!runner) return runner.errors();

  const std::string arch = (*runner)->arch();
  // The plan keeps the plain build's registers (its latency is reported).
  auto plain = runtime::buildCuda(plan, graph, **nvrtc, arch);
  if (!plain) return plain.errors();
  auto instrumented = runtime::buildCuda(plan, graph, **nvrtc, arch, /*instrument=*/true);
  if (!instrumented) return instrumented.errors();

  ProfileTarget target{**driver, **runner, capability, cupti};
  auto result = profileBuilds(target, plan, graph, ProfileBuild{*plain->program, *plain->compiled},
                              ProfileBuild{*instrumented->program, *instrumented->compiled}, inputs, o);
  if (!result) return result.errors();
  result->resources = std::move(plain->resources);
  return result;
}

}  // namespace rammer::profiler

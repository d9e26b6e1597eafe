#include "app/cli/run_host.h"

#include <fmt/core.h>

#include "app/cli/model_loading.h"
#include "core/runtime/host_execution.h"
#include "app/cli/trace_file.h"

namespace rammer::cli {

HostRunReport runOnHost(const ir::Graph& optimized, const std::vector<ir::Tensor>& inputs,
                        const HostRunRequest& request, Progress& progress) {
  const PlannedModel planned = planGraph(optimized, request.plan, progress);
  const schedule::Plan& plan = planned.plan;
  progress.status(fmt::format("scheduled in {}: {} rTasks in {} programs", formatSeconds(planned.scheduleSeconds),
                              plan.numRTasks(), plan.programs.size()));

  runtime::HostExecutionOptions options;
  options.workers = request.threads;
  options.repeat = request.repeat;
  options.measureTrace = !request.traceFile.empty();
  options.build.threadSanitizer = request.threadSanitizer;
  options.status = [&progress](const std::string& s) { progress.status(s); };
  auto run = runtime::executeOnHost(plan, optimized, inputs, options);
  if (!run) throwDiagnostics(run.errors(), "running the " + plan.policy + " plan on the host");

  if (run->trace) writeTraceFile(request.traceFile, *run->trace);

  HostRunReport r;
  const runtime::HostBuild& b = run->build;
  r.json["policy"] = plan.policy;
  r.json["device"] = planned.device.id;
  r.json["programs"] = plan.programs.size();
  r.json["rtasks"] = plan.numRTasks();
  r.json["ran_on"] = run->deviceName;
  r.json["compiler"] = b.compiler;
  r.json["compile_seconds"] = b.compileSeconds;
  r.json["compile_cached"] = b.cached;
  r.json["program"] = b.executable.string();
  r.json["run_ms"] = run->meanRunMs;
  r.json["runs"] = request.repeat;
  r.json["peak_rss_kib"] = run->peakRssKib;
  r.json["thread_sanitizer"] = request.threadSanitizer;
  if (!request.traceFile.empty()) r.json["trace"] = request.traceFile;
  r.lines.push_back(fmt::format("plan     {} on {}: {} programs, {} rTasks", plan.policy, planned.device.id,
                                plan.programs.size(), plan.numRTasks()));
  r.lines.push_back(b.cached ? fmt::format("compile  cached ({})", b.executable.string())
                             : fmt::format("compile  {} ({})", formatSeconds(b.compileSeconds), b.compiler));
  r.lines.push_back(fmt::format("ran on   {}: {:.3f} ms per run (mean of {}){}", run->deviceName, run->meanRunMs,
                                request.repeat, request.threadSanitizer ? ", ThreadSanitizer: no data race" : ""));
  if (!request.traceFile.empty()) r.lines.push_back("trace    " + request.traceFile + " (measured on the CPU)");
  r.outputs = std::move(run->outputs);
  return r;
}

}  // namespace rammer::cli

#include "app/cli/run_host.h"

#include <fmt/core.h>

#include "app/cli/pipeline_driver.h"
#include "app/cli/trace_file.h"

namespace rammer::cli {

HostRunReport runOnHost(std::shared_ptr<const ir::Graph> original, const std::string& model,
                        const std::vector<ir::Tensor>& inputs, const HostRunRequest& request, Progress& progress) {
  pipeline::Pipeline p = planRunPipeline(std::move(original), model, request.plan, pipeline::RunTarget::Host, inputs,
                                         request.checkOutputs);
  runtime::HostExecutionOptions& host = p.options().run.host;
  host.workers = request.threads;
  host.repeat = request.repeat;
  host.measureTrace = !request.traceFile.empty();
  host.build.threadSanitizer = request.threadSanitizer;
  host.launch = request.launch;
  p.options().run.maxMemoryBytes = request.maxMemoryBytes;
  runStages(p, pipeline::Stage::Optimize, pipeline::Stage::Run, progress);

  const pipeline::Artifacts& a = p.artifacts();
  const schedule::Plan& plan = *a.plan;
  progress.status(fmt::format("scheduled in {}: {} rTasks in {} programs", formatSeconds(a.scheduleSeconds),
                              plan.numRTasks(), plan.programs.size()));
  const runtime::HostExecution* run = &*a.run->host;
  if (a.run->trace) writeTraceFile(request.traceFile, *a.run->trace);

  HostRunReport r;
  const runtime::HostBuild& b = run->build;
  r.json["policy"] = plan.policy;
  r.json["device"] = plan.device.id;
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
  r.lines.push_back(fmt::format("plan     {} on {}: {} programs, {} rTasks", plan.policy, plan.device.id,
                                plan.programs.size(), plan.numRTasks()));
  r.lines.push_back(b.cached ? fmt::format("compile  cached ({})", b.executable.string())
                             : fmt::format("compile  {} ({})", formatSeconds(b.compileSeconds), b.compiler));
  r.lines.push_back(fmt::format("ran on   {}: {:.3f} ms per run (mean of {}){}{}", run->deviceName, run->meanRunMs,
                                request.repeat,
                                run->launch == runtime::LaunchMode::Graph ? ", replayed as one graph" : "",
                                request.threadSanitizer ? ", ThreadSanitizer: no data race" : ""));
  if (!request.traceFile.empty()) r.lines.push_back("trace    " + request.traceFile + " (measured on the CPU)");
  r.optimized = a.planGraph();
  r.outputs = a.run->outputs;
  r.check = a.run->check;
  r.launch = run->launch;
  return r;
}

}  // namespace rammer::cli

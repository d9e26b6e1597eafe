#include "app/cli/run_cuda.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include "app/cli/json_output.h"
#include "app/cli/output_check_report.h"
#include "app/cli/model_loading.h"
#include "app/cli/pipeline_driver.h"
#include "app/cli/trace_file.h"
#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/onnx/tensor_file.h"
#include "core/runtime/gpu_execution.h"
#include "profiler/run_metrics.h"

namespace rammer::cli {

namespace {

struct Spread {
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0;
};

// Nearest-rank percentiles of the measured latencies.
Spread spreadOf(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  auto rank = [&v, n](double p) {
    const auto k = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
    return v[std::clamp<size_t>(k, 1, n) - 1];
  };
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  s.p10 = rank(0.1);
  s.p90 = rank(0.9);
  return s;
}

// The hardware metrics (profiler/run_metrics.h): a separate profiled run
// of the plan; a profile that fails leaves every value "unavailable" with
// the reason, while the run's own results stand.
profiler::RunMetrics collectMetrics(const CudaRunRequest& r, const schedule::Plan& plan, const ir::Graph& graph,
                                    const std::vector<ir::Tensor>& inputs) {
  profiler::ProfileOptions options;
  options.warmup = r.warmup;
  options.repeat = r.repeat;
  auto m = profiler::measureRunMetrics(plan, graph, inputs, options);
  if (m) return std::move(m).value();
  const std::string text = m.errorText();
  return profiler::unavailableRunMetrics(plan, text.substr(0, text.find('\n')));
}

Json metricJson(const profiler::MetricValue& v, bool available) {
  return Json{{"value", available ? Json(v.value) : Json(nullptr)}, {"measured", v.measured}, {"source", v.source}};
}

Json metricsJson(const profiler::RunMetrics& m) {
  const bool ok = m.available();
  Json programs = Json::array();
  for (const profiler::LaunchMetrics& l : m.programs)
    programs.push_back(Json{{"program", l.program},
                            {"kernel", l.kernel},
                            {"weight_us", l.weightUs},
                            {"sm_efficiency_pct", metricJson(l.smEfficiencyPct, ok)},
                            {"warp_activity_pct", metricJson(l.warpActivityPct, ok)},
                            {"sm_cycles_active", metricJson(l.smCyclesActive, ok)}});
  Json j{{"available", ok},
         {"kernel_times", m.timestampsNote},
         {"counters", m.countersNote},
         {"programs", std::move(programs)},
         {"total", Json{{"weight_us", m.totalWeightUs},
                        {"sm_efficiency_pct", metricJson(m.smEfficiencyPct, ok)},
                        {"warp_activity_pct", metricJson(m.warpActivityPct, ok)},
                        {"sm_cycles_active", metricJson(m.smCyclesActive, ok)}}}};
  if (!ok) j["reason"] = m.unavailable;
  return j;
}

// "85.2" for a counter, "85.2~" for an estimate, "-" when unavailable.
std::string metricText(const profiler::MetricValue& v, bool available, int decimals) {
  if (!available) return "-";
  return fmt::format("{:.{}f}{}", v.value, decimals, v.measured ? " " : "~");
}

void printMetrics(const profiler::RunMetrics& m) {
  const bool ok = m.available();
  if (ok) {
    fmt::print("metrics   kernel times: {}\n          counters: {}\n", m.timestampsNote, m.countersNote);
  } else {
    fmt::print("metrics   unavailable: {}\n", m.unavailable);
  }
  fmt::print("  {:>7}  {:<24} {:>10} {:>10} {:>11} {:>15}\n", "program", "kernel", "weight_us", "sm_eff_%",
             "warp_act_%", "sm_act_cycles");
  for (const profiler::LaunchMetrics& l : m.programs)
    fmt::print("  {:>7}  {:<24} {:>10} {:>10} {:>11} {:>15}\n", l.program, l.kernel.empty() ? "-" : l.kernel,
               ok ? fmt::format("{:.2f}", l.weightUs) : "-", metricText(l.smEfficiencyPct, ok, 1),
               metricText(l.warpActivityPct, ok, 1), metricText(l.smCyclesActive, ok, 0));
  fmt::print("  {:>7}  {:<24} {:>10} {:>10} {:>11} {:>15}\n", "total", "(time-weighted)",
             ok ? fmt::format("{:.2f}", m.totalWeightUs) : "-", metricText(m.smEfficiencyPct, ok, 1),
             metricText(m.warpActivityPct, ok, 1), metricText(m.smCyclesActive, ok, 0));
  if (!ok) return;  // every value's source is the reason above
  fmt::print("  sources (~ marks an estimate; cycles are summed over the launches)\n");
  fmt::print("    sm_eff_%       {}\n", m.smEfficiencyPct.source);
  fmt::print("    warp_act_%     {}\n", m.warpActivityPct.source);
  fmt::print("    sm_act_cycles  {}\n", m.smCyclesActive.source);
}

// Per launch, what the compiler gave its kernel: a recorded trace keeps
// the registers and occupancy its times were measured with.
Json resourcesJson(const std::vector<runtime::ProgramResources>& resources) {
  Json out = Json::array();
  for (const runtime::ProgramResources& p : resources) {
    Json functions = Json::array();
    for (const auto& [name, u] : p.functions)
      functions.push_back(Json{{"function", name},
                               {"stack_bytes", u.stackBytes},
                               {"spill_store_bytes", u.spillStoreBytes},
                               {"spill_load_bytes", u.spillLoadBytes}});
    out.push_back(Json{{"program", p.program},
                       {"kernel", p.kernel},
                       {"blocks", p.gridBlocks},
                       {"threads", p.blockThreads},
                       {"registers", p.usage.registers},
                       {"shared_bytes", p.sharedBytes},
                       {"stack_bytes", p.usage.stackBytes},
                       {"spill_store_bytes", p.spillStoreBytes()},
                       {"spill_load_bytes", p.usage.spillLoadBytes + p.functionSpillLoadBytes},
                       {"kernel_spill_store_bytes", p.usage.spillStoreBytes},
                       {"functions", std::move(functions)},
                       {"blocks_per_sm", p.occupancy.blocksPerSM}});
  }
  return out;
}

std::vector<ir::Tensor> loadInputs(const CudaRunRequest& r, const ir::Graph& graph) {
  if (r.inputsDir.empty()) {
    auto inputs = exec::makeRandomInputs(graph, r.seed, r.maxMemoryBytes);
    if (!inputs) throwDiagnostics(inputs.errors(), "random inputs");
    return std::move(inputs).value();
  }
  auto named = onnx_import::readTensorDir(r.inputsDir, "input");
  if (!named) throwDiagnostics(named.errors(), "reading inputs from " + r.inputsDir);
  std::vector<ir::Tensor> inputs;
  for (auto& n : *named) inputs.push_back(std::move(n.tensor));
  if (auto errs = exec::checkInputs(graph, inputs); !errs.empty()) throwDiagnostics(errs, r.inputsDir);
  return inputs;
}

void writeOutputs(const std::string& dir, const ir::Graph& graph, const std::vector<ir::Tensor>& outputs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CliError(dir + ": cannot create the outputs folder: " + ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto file = std::filesystem::path(dir) / fmt::format("output_{}.pb", i);
    if (auto errs = onnx_import::writeTensorFile(file, outputs[i], graph.value(graph.outputs()[i]).name); !errs.empty())
      throwDiagnostics(errs, file.string());
  }
}

}  // namespace

int runCudaBackend(const CudaRunRequest& r, const GlobalOptions& global) {
  if (r.repeat < 1) throw CliError("--repeat must be at least 1");
  requireFile(r.model, "model");
  // Before any work: say plainly what this machine lacks.
  const runtime::CudaCapability capability = runtime::probeCuda();
  if (!capability.canRun()) throw CliError("cannot run on the GPU: " + capability.message);

  Progress progress(global);
  pipeline::PlanChoices plan = r.plan;
  plan.fitRegisters = true;  // the plan that runs spills nothing
  pipeline::Pipeline p(pipeline::optionsFor(r.model, plan));
  runStages(p, pipeline::Stage::Import, pipeline::Stage::Validate, progress);
  const PlannedModel planned = plannedOf(p);
  const ir::Graph& graph = *planned.optimized;
  const std::vector<ir::Tensor> inputs = loadInputs(r, graph);

  pipeline::RunOptions& run = p.options().run;
  run.target = pipeline::RunTarget::Gpu;
  run.capability = capability;
  run.inputs = inputs;
  run.checkOutputs = r.checkOutputs;
  run.maxMemoryBytes = r.maxMemoryBytes;
  run.gpu.run.warmup = r.warmup;
  run.gpu.run.repeat = r.repeat;
  run.gpu.run.watchdogSeconds = r.watchdogSeconds;
  run.gpu.run.launch = r.launch;
  run.gpu.lockFile = r.gpuLock;
  run.gpu.measureTrace = !r.traceFile.empty();  // --metrics profiles separately
  runStages(p, pipeline::Stage::Run, pipeline::Stage::Run, progress);
  const pipeline::RunRecord& record = *p.artifacts().run;
  const runtime::GpuExecution* gpu = &*record.gpu;

  const pipeline::OutputCheck* check = record.check ? &*record.check : nullptr;
  const bool pass = !check || check->match;
  const Spread us = spreadOf(gpu->run.latencyUs);
  if (!r.outputsDir.empty()) writeOutputs(r.outputsDir, graph, record.outputs);
  if (!r.traceFile.empty() && record.trace) writeTraceFile(r.traceFile, *record.trace);
  std::optional<profiler::RunMetrics> metrics;
  if (r.metrics) {
    progress.status("profiling with CUPTI...");
    metrics = collectMetrics(r, *planned.plan, graph, inputs);
  }
  int maxRegs = 0;
  int64_t spilled = 0;
  for (const auto& p : gpu->resources) {
    maxRegs = std::max(maxRegs, p.usage.registers);
    spilled += p.spillStoreBytes();
  }

  if (r.json) {
    Json j;
    j["model"] = r.model;
    j["backend"] = "cuda";
    j["device"] = gpu->deviceName;
    j["arch"] = gpu->arch;
    j["policy"] = r.plan.policy;
    j["programs"] = planned.plan->programs.size();
    j["launch"] = runtime::launchModeName(gpu->run.launch);
    j["latency_us"] = {{"runs", gpu->run.latencyUs.size()}, {"median", us.median}, {"min", us.min},
                       {"max", us.max}, {"p10", us.p10}, {"p90", us.p90}};
    if (check) j["output_check"] = outputCheckJson(*check);
    j["max_registers"] = maxRegs;
    j["spill_store_bytes"] = spilled;
    j["source_fnv1a64"] = gpu->sourceHash;
    j["resources"] = resourcesJson(gpu->resources);
    if (record.trace) j["instrumented_latency_us"] = gpu->instrumentedLatencyUs;
    if (record.trace) j["measured_sm_efficiency"] = record.trace->smEfficiency;
    if (metrics) j["metrics"] = metricsJson(*metrics);
    if (!r.traceFile.empty()) j["trace"] = r.traceFile;
    fmt::print("{}\n", j.dump(2));
    return pass ? 0 : 1;
  }
  fmt::print("model     {}\n", r.model);
  fmt::print("device    {} ({}), plan for {}\n", gpu->deviceName, gpu->arch, planned.device.id);
  fmt::print("policy    {}: {} programs, {} rTasks\n", schedule::policyName(r.plan.policy), planned.plan->programs.size(),
             planned.plan->numRTasks());
  fmt::print("kernels   {} launches{}, up to {} registers, {}\n", gpu->resources.size(),
             gpu->run.launch == runtime::LaunchMode::Graph ? " replayed as one CUDA graph" : "", maxRegs,
             spilled ? fmt::format("{} B spilled", spilled) : std::string("no spills"));
  fmt::print("latency   median {:.1f} us over {} runs (min {:.1f}, p10 {:.1f}, p90 {:.1f}, max {:.1f})\n", us.median,
             gpu->run.latencyUs.size(), us.min, us.p10, us.p90, us.max);
  if (check)
    for (const std::string& line : outputCheckLines(*check)) fmt::print("{}\n", line);
  if (metrics) printMetrics(*metrics);
  if (!r.traceFile.empty()) fmt::print("trace     {} (measured, Chrome trace JSON)\n", r.traceFile);
  return pass ? 0 : 1;
}

}  // namespace rammer::cli

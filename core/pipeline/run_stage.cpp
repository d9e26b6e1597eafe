#include "core/pipeline/run_stage.h"

#include <algorithm>
#include <cmath>

#include "core/exec/memory_budget.h"
#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/pipeline/time_text.h"

namespace rammer::pipeline {

namespace {

ir::Diagnostic noteOf(std::string message, ir::Severity severity = ir::Severity::Note) {
  ir::Diagnostic d;
  d.severity = severity;
  d.message = std::move(message);
  return d;
}

class PlanRun {
 public:
  PlanRun(const schedule::Plan& plan, const ir::Graph& optimized, const ir::Graph& original, const RunOptions& options,
          const StageContext& context)
      : plan_(plan), optimized_(optimized), original_(original), options_(options), context_(context) {}

  ir::Result<RunRecord> run() {
    if (!options_.inputs.empty()) {
      record_.inputs = options_.inputs;
    } else {
      auto inputs = exec::makeRandomInputs(optimized_, options_.inputSeed, options_.maxMemoryBytes);
      if (!inputs) return inputs.errors();
      record_.inputs = std::move(inputs).value();
    }
    std::vector<ir::Diagnostic> errors;
    if (options_.target == RunTarget::Host) {
      errors = onHost();
    } else if (options_.target == RunTarget::Emulator) {
      errors = onEmulator(std::nullopt);
    } else {
      const runtime::CudaCapability cuda = options_.capability ? *options_.capability : runtime::probeCuda(options_.libraries);
      if (cuda.canRun())
        errors = onGpu(cuda);
      else if (options_.target == RunTarget::Gpu)
        errors = {ir::makeError("no GPU to run on: " + cuda.message)};
      else
        errors = onEmulator(cuda);
    }
    if (!errors.empty()) return errors;
    if (options_.checkOutputs && !cancelled()) {
      if (auto problems = checkOutputs(); !problems.empty()) return problems;
    }
    return std::move(record_);
  }

 private:
  bool cancelled() const { return context_.cancel && context_.cancel->load(std::memory_order_relaxed); }
  void progress(const std::string& what, double within) const {
    if (context_.progress) context_.progress(what, within);
  }
  void diagnose(ir::Diagnostic d) const {
    if (context_.diagnose) context_.diagnose(std::move(d));
  }
  void log(std::string line) const {
    if (context_.log) context_.log(std::move(line));
  }

  std::vector<ir::Diagnostic> onGpu(const runtime::CudaCapability& cuda) {
    progress("Compiling and running on " + cuda.deviceName + "...", 0.1);
    const auto start = Clock::now();
    schedule::Plan plan = plan_;  // gets the compiled register counts
    runtime::GpuExecutionOptions options = options_.gpu;
    options.libraries = options_.libraries;
    auto run = runtime::executeOnGpu(plan, optimized_, record_.inputs, options);
    if (!run) return run.errors();
    record_.backend = RunBackend::Gpu;
    record_.label = "measured: " + run->deviceName;
    std::vector<double> lat = run->run.latencyUs;
    if (!lat.empty()) {
      std::sort(lat.begin(), lat.end());
      record_.metrics.emplace_back("latency_median_us", lat[lat.size() / 2]);
      record_.metrics.emplace_back("latency_min_us", lat.front());
    }
    if (run->trace) {
      sim::Trace trace = std::move(*run->trace);
      run->trace.reset();
      for (const auto& [k, v] : trace.metrics) record_.metrics.emplace_back(k, v);
      record_.trace = std::make_shared<const sim::Trace>(std::move(trace));
    }
    record_.outputs = std::move(run->run.outputs);
    log("ran on " + run->deviceName + " (" + run->arch + ")" +
        (lat.empty() ? std::string() : ": median " + fixedText(lat[lat.size() / 2], 1) + " us") +
        (run->run.launch == runtime::LaunchMode::Graph ? " (launched as one CUDA graph)" : "") + ", in " +
        timeText(secondsSince(start)));
    record_.gpu = std::move(run).value();
    if (options_.profileGpu && !cancelled()) {
      progress("Profiling with CUPTI...", 0.4);
      for (ir::Diagnostic& d : options_.profileGpu(plan_, optimized_, record_.inputs, options_.libraries, record_)) diagnose(std::move(d));
    }
    return {};
  }

  // `cuda`: the GPU probe when the emulator stands in for a missing GPU.
  std::vector<ir::Diagnostic> onEmulator(const std::optional<runtime::CudaCapability>& cuda) {
    exec::EmulatorOptions options = options_.emulator;
    options.cancel = context_.cancel;
    options.maxMemoryBytes = options_.maxMemoryBytes;
    options.progress = [this](size_t done, size_t total) {
      progress("Emulating on the CPU (" + std::to_string(done) + " of " + std::to_string(total) + " rTasks)...",
               total ? 0.6 * static_cast<double>(done) / static_cast<double>(total) : 0);
    };
    auto result = exec::emulatePlan(plan_, optimized_, record_.inputs, options);
    if (!result) return result.errors();
    record_.backend = RunBackend::Emulator;
    record_.label = cuda ? kEmulatedNoGpuLabel : kEmulatedLabel;
    if (cuda)
      diagnose(noteOf("no GPU to run on (" + cuda->message +
                      "): ran the plan on the CPU emulator instead; its timeline is wall-clock time on this machine's "
                      "threads, not a GPU measurement"));
    if (result->trace) {
      sim::Trace trace = std::move(*result->trace);
      result->trace.reset();
      trace.source = record_.label;
      record_.trace = std::make_shared<const sim::Trace>(std::move(trace));
    }
    record_.metrics.emplace_back("emulator_threads", result->threads);
    record_.metrics.emplace_back("emulator_wall_us", result->seconds * 1e6);
    record_.outputs = std::move(result->outputs);
    log("emulated on " + std::to_string(result->threads) + " CPU thread(s) in " + timeText(result->seconds) +
        (cuda ? " (no GPU: " + cuda->message + ")" : std::string()));
    record_.emulator = std::move(result).value();
    return {};
  }

  // The generated kernels themselves on the CPU: built by the system
  // compiler (cached), run as a child process.
  std::vector<ir::Diagnostic> onHost() {
    // The child process holds every buffer and a copy of the weights.
    if (auto over = exec::checkMemoryBudget(exec::estimatePlanRun(plan_, optimized_, true), options_.maxMemoryBytes,
                                            "the generated code on the CPU"))
      return {*over};
    progress("Compiling the generated code for the CPU...", 0.05);
    runtime::HostExecutionOptions options = options_.host;
    options.cancel = context_.cancel;
    auto status = options.status;
    options.status = [this, status](const std::string& s) {
      if (status) status(s);
      progress(s, 0.2);
    };
    auto run = runtime::executeOnHost(plan_, optimized_, record_.inputs, options);
    if (!run) return run.errors();
    record_.backend = RunBackend::Host;
    record_.label = kHostCodeLabel;
    diagnose(noteOf("ran the generated kernels on the CPU (" + run->deviceName +
                    "): this checks the generated code itself; its timeline is wall-clock time on this machine's "
                    "threads, not a GPU measurement"));
    if (run->trace) {
      sim::Trace trace = std::move(*run->trace);
      run->trace.reset();
      for (const auto& [k, v] : trace.metrics) record_.metrics.emplace_back(k, v);
      trace.source = std::string(kHostCodeLabel) + " (" + run->deviceName + ")";
      record_.trace = std::make_shared<const sim::Trace>(std::move(trace));
    }
    record_.metrics.emplace_back("host_run_ms", run->meanRunMs);
    record_.metrics.emplace_back("host_compile_s", run->build.compileSeconds);
    record_.metrics.emplace_back("host_build_cached", run->build.cached ? 1 : 0);
    record_.metrics.emplace_back("host_workers", run->workers);
    record_.outputs = std::move(run->outputs);
    log("generated code on " + run->deviceName + ": " + fixedText(run->meanRunMs, 2) + " ms per run" +
        (run->launch == runtime::LaunchMode::Graph ? " (replayed as one graph)" : "") +
        (run->build.cached ? " (build cached)" : ", compiled in " + timeText(run->build.compileSeconds)));
    record_.host = std::move(run).value();
    return {};
  }

  // The plan's outputs against the reference executor on the imported
  // graph: a wrong schedule (or rKernel) shows up here, not just in the
  // timeline. A mismatch is a warning: the run itself happened.
  std::vector<ir::Diagnostic> checkOutputs() {
    exec::ReferenceOptions options;
    options.cancel = context_.cancel;
    options.maxMemoryBytes = options_.maxMemoryBytes;
    options.progress = [this](size_t done, size_t total) {
      progress("Computing reference outputs...",
               0.6 + (total ? 0.4 * static_cast<double>(done) / static_cast<double>(total) : 0));
    };
    auto expected = exec::runReference(original_, record_.inputs, options);
    if (!expected) return expected.errors();
    OutputCheck check = compareOutputs(original_, record_.outputs, *expected);
    std::vector<ir::Diagnostic> errors;
    for (const OutputComparison& c : check.outputs) {
      if (!c.sameShape)
        errors.push_back(ir::makeError(mismatchMessage(c), c.name));
      else if (c.mismatched)
        diagnose(noteOf(mismatchMessage(c), ir::Severity::Warning));
    }
    if (!errors.empty()) return errors;
    record_.metrics.emplace_back("max_abs_diff_vs_reference", check.maxAbsDiff);
    log(check.match ? "outputs match the reference executor (max |diff| " + std::to_string(check.maxAbsDiff) + ")"
                    : "outputs DIFFER from the reference executor");
    record_.check = std::move(check);
    return {};
  }

  const schedule::Plan& plan_;
  const ir::Graph& optimized_;
  const ir::Graph& original_;
  const RunOptions& options_;
  const StageContext& context_;
  RunRecord record_;
};

}  // namespace

ir::Result<RunRecord> runPlan(const schedule::Plan& plan, const ir::Graph& optimized, const ir::Graph& original,
                              const RunOptions& options, const StageContext& context) {
  return PlanRun(plan, optimized, original, options, context).run();
}

ir::Result<std::vector<ir::Tensor>> runReferenceModel(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                                                      int64_t maxMemoryBytes,
                                                      std::function<void(size_t done, size_t total)> progress,
                                                      const std::atomic<bool>* cancel) {
  exec::ReferenceOptions options;
  options.cancel = cancel;
  options.maxMemoryBytes = maxMemoryBytes;
  options.progress = std::move(progress);
  return exec::runReference(graph, inputs, options);
}

}  // namespace rammer::pipeline

#include "viz/models/studio_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <sstream>

#include "core/device/device_spec.h"
#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/onnx/importer.h"
#include "core/runtime/gpu_execution.h"
#include "core/runtime/host_execution.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"
#include "core/exec/random_inputs.h"

#ifdef RAMMER_HAVE_PROFILER
#include "profiler/run_metrics.h"
#endif

namespace rammer::viz {

QString stageName(PipelineStage stage) {
  switch (stage) {
    case PipelineStage::Import: return QStringLiteral("import");
    case PipelineStage::Optimize: return QStringLiteral("optimize");
    case PipelineStage::Schedule: return QStringLiteral("schedule");
    case PipelineStage::Validate: return QStringLiteral("validate");
    case PipelineStage::Simulate: return QStringLiteral("simulate");
    case PipelineStage::Run: return QStringLiteral("run");
    case PipelineStage::Export: return QStringLiteral("export");
  }
  return QStringLiteral("?");
}

bool PipelineResult::done(PipelineStage stage) const {
  return lastDone && stage >= request.from && stage <= *lastDone;
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

std::string timeText(double seconds) {
  return seconds < 1 ? fixed(seconds * 1000, 1) + " ms" : fixed(seconds, 2) + " s";
}

// Runs the stages of one request; each returns false after recording why.
class PipelineRun {
 public:
  PipelineRun(PipelineRequest request, const JobControl& control) : control_(control) {
    r_.request = std::move(request);
    r_.original = r_.request.original;
    r_.optimized = r_.request.optimized;
    r_.passLog = r_.request.passLog;
    r_.plan = r_.request.plan;
  }

  PipelineResult run() {
    const PipelineRequest& q = r_.request;
    for (int s = static_cast<int>(q.from); s <= static_cast<int>(q.to); ++s) {
      const auto stage = static_cast<PipelineStage>(s);
      if (control_.cancelled()) break;
      current_ = stage;
      report(QStringLiteral("%1...").arg(verb(stage)), 0);
      bool ok = false;
      try {
        ok = runStage(stage);
      } catch (const std::exception& e) {
        // Stages report bad input as diagnostics; this guard keeps a bug
        // (or an allocation failure on a huge model) from ending the program.
        ok = false;
        error("internal error: " + std::string(e.what()));
      }
      if (!ok) {
        r_.failedStage = stage;
        break;
      }
      r_.lastDone = stage;
    }
    // Work finished after a cancel is never used: the person asked for it to stop.
    if (control_.cancelled()) r_.cancelled = true;
    return std::move(r_);
  }

 private:
  static QString verb(PipelineStage s) {
    switch (s) {
      case PipelineStage::Import: return QStringLiteral("Importing");
      case PipelineStage::Optimize: return QStringLiteral("Optimizing");
      case PipelineStage::Schedule: return QStringLiteral("Scheduling");
      case PipelineStage::Validate: return QStringLiteral("Validating");
      case PipelineStage::Simulate: return QStringLiteral("Simulating");
      case PipelineStage::Run: return QStringLiteral("Running");
      case PipelineStage::Export: return QStringLiteral("Exporting");
    }
    return {};
  }

  // Progress of the whole request: each stage gets an equal share.
  void report(const QString& what, double withinStage) const {
    const int first = static_cast<int>(r_.request.from);
    const int count = static_cast<int>(r_.request.to) - first + 1;
    const double share = (static_cast<int>(current_) - first + std::clamp(withinStage, 0.0, 1.0)) / count;
    control_.report(what, static_cast<int>(std::lround(100 * share)));
  }

  void add(ir::Diagnostic d) { r_.diagnostics.push_back({current_, std::move(d)}); }
  void add(const std::vector<ir::Diagnostic>& ds) {
    for (const auto& d : ds) add(d);
  }
  void error(std::string message, std::string node = {}) { add(ir::makeError(std::move(message), std::move(node))); }
  void note(std::string message, ir::Severity severity = ir::Severity::Note) {
    ir::Diagnostic d;
    d.severity = severity;
    d.message = std::move(message);
    add(std::move(d));
  }
  bool need(bool present, const char* what) {
    if (!present) error(std::string("no ") + what + " yet (an earlier stage has not run)");
    return present;
  }

  bool runStage(PipelineStage s) {
    switch (s) {
      case PipelineStage::Import: return importModel();
      case PipelineStage::Optimize: return optimize();
      case PipelineStage::Schedule: return schedulePlan();
      case PipelineStage::Validate: return validatePlan();
      case PipelineStage::Simulate: return simulate();
      case PipelineStage::Run: return runPlan();
      case PipelineStage::Export: error("export is not a pipeline stage"); return false;
    }
    return false;
  }

  bool importModel() {
    const auto start = Clock::now();
    const std::string& path = r_.request.modelPath;
    if (path.empty()) {
      error("no model file given");
      return false;
    }
    onnx_import::ImportOptions options;
    options.batch = r_.request.batch > 0 ? r_.request.batch : 1;
    auto graph = onnx_import::importModel(path, options);
    if (!graph) {
      for (ir::Diagnostic d : graph.errors()) {
        if (d.file.empty()) d.file = path;
        add(std::move(d));
      }
      return false;
    }
    r_.original = std::make_shared<const ir::Graph>(std::move(graph).value());
    r_.optimized.reset();
    r_.passLog.clear();
    r_.plan.reset();
    const ir::Graph& g = *r_.original;
    r_.log.push_back("imported " + std::filesystem::path(path).filename().string() + ": " +
                     std::to_string(g.numNodes()) + " nodes, " + std::to_string(g.inputs().size()) + " input(s), batch " +
                     std::to_string(*options.batch) + " in " + timeText(secondsSince(start)));
    return true;
  }

  bool optimize() {
    if (!need(r_.original != nullptr, "imported model")) return false;
    const auto start = Clock::now();
    auto graph = std::make_shared<ir::Graph>(*r_.original);
    passes::PassContext ctx;
    auto records = passes::standardPipeline().run(*graph, ctx);
    if (!records) {
      add(records.errors());
      return false;
    }
    r_.passLog = std::move(records).value();
    r_.optimized = std::move(graph);
    r_.plan.reset();
    const size_t changed =
        static_cast<size_t>(std::count_if(r_.passLog.begin(), r_.passLog.end(), [](const auto& p) { return p.changed; }));
    r_.log.push_back("optimized: " + std::to_string(r_.original->numNodes()) + " -> " +
                     std::to_string(r_.optimized->numNodes()) + " nodes, " + std::to_string(changed) + " of " +
                     std::to_string(r_.passLog.size()) + " passes changed the graph, in " +
                     timeText(secondsSince(start)));
    return true;
  }

  bool schedulePlan() {
    if (!need(r_.optimized != nullptr, "optimized graph")) return false;
    const PipelineRequest& q = r_.request;
    auto device = device::loadDevice(q.device);
    if (!device) {
      add(device.errors());
      return false;
    }
    schedule::PolicyOptions options = sim::policyOptions(studioCostModel());
    options.cancelled = [this] { return control_.cancelled(); };
    auto policy = schedule::makePolicy(q.policy, std::move(options));
    if (!policy) {
      add(policy.errors());
      return false;
    }
    const auto start = Clock::now();
    auto plan = (*policy)->schedule(*r_.optimized, *device, q.constraints);
    if (!plan) {
      if (control_.cancelled()) return false;  // not a failure: the person asked to stop
      add(plan.errors());
      return false;
    }
    r_.plan = std::make_shared<const schedule::Plan>(std::move(plan).value());
    const schedule::Plan& p = *r_.plan;
    size_t barriers = 0;
    for (const auto& info : p.programs) barriers += info.program.numBarriers();
    r_.log.push_back("scheduled with " + p.policy + " on " + p.device.id + ": " + std::to_string(p.programs.size()) +
                     " program(s), " + std::to_string(p.numRTasks()) + " rTasks, " + std::to_string(barriers) +
                     " barriers in " + timeText(secondsSince(start)) +
                     (q.constraints.empty() ? std::string() : " (with schedule edits)"));
    return true;
  }

  bool validatePlan() {
    if (!need(r_.plan != nullptr && r_.optimized != nullptr, "plan")) return false;
    const auto start = Clock::now();
    schedule::ValidationReport report = schedule::checkPlan(*r_.plan, *r_.optimized);
    if (!report.ok()) {
      for (const auto& p : report.problems)
        add(ir::makeError(schedule::problemKindName(p.kind) + ": " + p.message, p.node));
      if (report.omitted) note(std::to_string(report.omitted) + " more problems not listed");
      r_.validation = std::move(report);
      return false;
    }
    r_.validation = std::move(report);
    r_.log.push_back("validated: every rTask runs once, after its producers, without deadlock (" +
                     timeText(secondsSince(start)) + ")");
    return true;
  }

  bool simulate() {
    if (!need(r_.plan != nullptr, "plan")) return false;
    const auto start = Clock::now();
    sim::Simulator simulator(studioCostModel());
    auto trace = simulator.run(*r_.plan);
    if (!trace) {
      add(trace.errors());
      return false;
    }
    r_.predicted = std::make_shared<const sim::Trace>(std::move(trace).value());
    r_.log.push_back("predicted " + fixed(r_.predicted->totalUs, 1) + " us, SM efficiency " +
                     fixed(100 * r_.predicted->smEfficiency, 1) + "% (" + simulator.model().name() + ", " +
                     timeText(secondsSince(start)) + ")");
    return true;
  }

  bool runPlan() {
    if (!need(r_.plan != nullptr && r_.optimized != nullptr && r_.original != nullptr, "plan")) return false;
    const PipelineRequest& q = r_.request;
    auto inputs = exec::makeRandomInputs(*r_.optimized, q.inputSeed);
    if (!inputs) {
      add(inputs.errors());
      return false;
    }
    std::vector<ir::Tensor> outputs;
    if (q.runTarget == RunTarget::Host) {
      if (!runOnHost(*inputs, outputs)) return false;
    } else {
      const runtime::CudaCapability cuda = q.capability ? *q.capability : runtime::probeCuda(q.libraries);
      if (q.runTarget == RunTarget::Auto && cuda.canRun()) {
        if (!runOnGpu(cuda, *inputs, outputs)) return false;
      } else {
        if (!runOnEmulator(cuda, *inputs, outputs)) return false;
      }
    }
    if (!q.checkOutputs) return true;
    return checkOutputs(*inputs, outputs);
  }

  bool runOnGpu(const runtime::CudaCapability& cuda, const std::vector<ir::Tensor>& inputs,
                std::vector<ir::Tensor>& outputs) {
    report(QStringLiteral("Compiling and running on %1...").arg(QString::fromStdString(cuda.deviceName)), 0.1);
    const auto start = Clock::now();
    schedule::Plan plan = *r_.plan;  // gets the compiled register counts
    runtime::GpuExecutionOptions options;
    options.libraries = r_.request.libraries;
    options.measureTrace = true;
    options.run.warmup = 2;
    options.run.repeat = 10;
    auto run = runtime::executeOnGpu(plan, *r_.optimized, inputs, options);
    if (!run) {
      add(run.errors());
      return false;
    }
    r_.backend = RunBackend::Gpu;
    r_.runLabel = "measured: " + run->deviceName;
    std::vector<double> lat = run->run.latencyUs;
    if (!lat.empty()) {
      std::sort(lat.begin(), lat.end());
      r_.runMetrics.emplace_back("latency_median_us", lat[lat.size() / 2]);
      r_.runMetrics.emplace_back("latency_min_us", lat.front());
    }
    if (run->trace) {
      sim::Trace trace = std::move(*run->trace);
      for (const auto& [k, v] : trace.metrics) r_.runMetrics.emplace_back(k, v);
      r_.measured = std::make_shared<const sim::Trace>(std::move(trace));
    }
    outputs = std::move(run->run.outputs);
    r_.log.push_back("ran on " + run->deviceName + " (" + run->arch + ")" +
                     (lat.empty() ? std::string() : ": median " + fixed(lat[lat.size() / 2], 1) + " us") + ", in " +
                     timeText(secondsSince(start)));
    if (r_.request.profile && !control_.cancelled()) profileOnGpu(inputs);
    return true;
  }

  // CUPTI metrics of the plan (SM efficiency, warp activity, active
  // cycles), time-weighted over its launches. A profile that fails is a
  // warning: the run itself succeeded.
  void profileOnGpu(const std::vector<ir::Tensor>& inputs) {
#ifdef RAMMER_HAVE_PROFILER
    report(QStringLiteral("Profiling with CUPTI..."), 0.4);
    const auto start = Clock::now();
    profiler::ProfileOptions options;
    options.probe.cuda = r_.request.libraries;
    auto metrics = profiler::measureRunMetrics(*r_.plan, *r_.optimized, inputs, options);
    if (!metrics) {
      for (ir::Diagnostic d : metrics.errors()) {
        d.severity = ir::Severity::Warning;
        d.message = "CUPTI profile failed: " + d.message;
        add(std::move(d));
      }
      return;
    }
    const profiler::RunMetrics& m = *metrics;
    auto put = [this](const char* name, const profiler::MetricValue& v) {
      r_.runMetrics.emplace_back(std::string(v.measured ? "cupti_" : "estimated_") + name, v.value);
    };
    if (m.totalWeightUs > 0) {
      put("sm_efficiency_pct", m.smEfficiencyPct);
      put("warp_activity_pct", m.warpActivityPct);
      put("sm_cycles_active", m.smCyclesActive);
    }
    if (!m.timestampsNote.empty()) note("kernel times: " + m.timestampsNote);
    if (!m.countersNote.empty()) note("counters: " + m.countersNote);
    r_.log.push_back("profiled " + std::to_string(m.programs.size()) + " launch(es) with CUPTI in " +
                     timeText(secondsSince(start)) + (m.smEfficiencyPct.measured ? "" : " (some metrics are estimates)"));
#else
    (void)inputs;
#endif
  }

  bool runOnEmulator(const runtime::CudaCapability& cuda, const std::vector<ir::Tensor>& inputs,
                     std::vector<ir::Tensor>& outputs) {
    exec::EmulatorOptions options;
    options.trace = true;
    options.cancel = control_.cancel;
    options.progress = [this](size_t done, size_t total) {
      report(QStringLiteral("Emulating on the CPU (%1 of %2 rTasks)...").arg(done).arg(total),
             total ? 0.6 * static_cast<double>(done) / static_cast<double>(total) : 0);
    };
    auto result = exec::emulatePlan(*r_.plan, *r_.optimized, inputs, options);
    if (!result) {
      add(result.errors());
      return false;
    }
    const bool chosen = r_.request.runTarget == RunTarget::Emulator;
    r_.backend = RunBackend::Emulator;
    r_.runLabel = chosen ? kEmulatedLabel : kEmulatedNoGpuLabel;
    if (!chosen)
      note("no GPU to run on (" + cuda.message + "): ran the plan on the CPU emulator instead; its timeline is "
           "wall-clock time on this machine's threads, not a GPU measurement");
    if (result->trace) {
      sim::Trace trace = std::move(*result->trace);
      trace.source = r_.runLabel;
      r_.measured = std::make_shared<const sim::Trace>(std::move(trace));
    }
    r_.runMetrics.emplace_back("emulator_threads", result->threads);
    r_.runMetrics.emplace_back("emulator_wall_us", result->seconds * 1e6);
    outputs = std::move(result->outputs);
    r_.log.push_back("emulated on " + std::to_string(result->threads) + " CPU thread(s) in " +
                     timeText(result->seconds) + (chosen ? std::string() : " (no GPU: " + cuda.message + ")"));
    return true;
  }

  // The generated kernels themselves on the CPU: built by the system
  // compiler (cached), run as a child process that records every rTask.
  bool runOnHost(const std::vector<ir::Tensor>& inputs, std::vector<ir::Tensor>& outputs) {
    report(QStringLiteral("Compiling the generated code for the CPU..."), 0.05);
    runtime::HostExecutionOptions options;
    options.measureTrace = true;
    options.repeat = 3;
    options.cancel = control_.cancel;
    options.status = [this](const std::string& s) { report(QString::fromStdString(s), 0.2); };
    auto run = runtime::executeOnHost(*r_.plan, *r_.optimized, inputs, options);
    if (!run) {
      if (control_.cancelled()) return false;
      add(run.errors());
      return false;
    }
    r_.backend = RunBackend::Host;
    r_.runLabel = kHostCodeLabel;
    note("ran the generated kernels on the CPU (" + run->deviceName +
         "): this checks the generated code itself; its timeline is wall-clock time on this machine's threads, not "
         "a GPU measurement");
    if (run->trace) {
      sim::Trace trace = std::move(*run->trace);
      for (const auto& [k, v] : trace.metrics) r_.runMetrics.emplace_back(k, v);
      trace.source = std::string(kHostCodeLabel) + " (" + run->deviceName + ")";
      r_.measured = std::make_shared<const sim::Trace>(std::move(trace));
    }
    r_.runMetrics.emplace_back("host_run_ms", run->meanRunMs);
    r_.runMetrics.emplace_back("host_compile_s", run->build.compileSeconds);
    r_.runMetrics.emplace_back("host_build_cached", run->build.cached ? 1 : 0);
    r_.runMetrics.emplace_back("host_workers", run->workers);
    outputs = std::move(run->outputs);
    r_.log.push_back("generated code on " + run->deviceName + ": " + fixed(run->meanRunMs, 2) + " ms per run" +
                     (run->build.cached ? " (build cached)" : ", compiled in " + timeText(run->build.compileSeconds)));
    return true;
  }

  // The plan's outputs against the reference executor on the imported graph:
  // a wrong schedule (or rKernel) shows up here, not just in the timeline.
  bool checkOutputs(const std::vector<ir::Tensor>& inputs, const std::vector<ir::Tensor>& outputs) {
    exec::ReferenceOptions options;
    options.cancel = control_.cancel;
    options.progress = [this](size_t done, size_t total) {
      report(QStringLiteral("Computing reference outputs..."),
             0.6 + (total ? 0.4 * static_cast<double>(done) / static_cast<double>(total) : 0));
    };
    auto expected = exec::runReference(*r_.original, inputs, options);
    if (!expected) {
      if (control_.cancelled()) return false;
      add(expected.errors());
      return false;
    }
    constexpr double kRtol = 1e-4, kAtol = 1e-5;
    double maxDiff = 0;
    bool match = expected->size() == outputs.size();
    const ir::Graph& g = *r_.original;
    for (size_t k = 0; k < std::min(expected->size(), outputs.size()); ++k) {
      const ir::Tensor& want = (*expected)[k];
      const ir::Tensor& got = outputs[k];
      const std::string name = k < g.outputs().size() ? g.value(g.outputs()[k]).name : std::to_string(k);
      if (want.numel() != got.numel() || want.dtype() != got.dtype()) {
        error("output '" + name + "' has a different shape or dtype than the reference's", name);
        match = false;
        continue;
      }
      if (!ir::isFloating(want.dtype()) || want.dtype() == ir::DType::String) continue;
      double worst = 0;
      size_t bad = 0;
      for (int64_t i = 0; i < want.numel(); ++i) {
        const double a = want.getDouble(i), b = got.getDouble(i);
        const double d = std::fabs(a - b);
        if (!(d <= kAtol + kRtol * std::fabs(a))) ++bad;
        if (d > worst || std::isnan(d)) worst = std::isnan(d) ? INFINITY : d;
      }
      maxDiff = std::max(maxDiff, worst);
      if (bad) {
        match = false;
        note("output '" + name + "' differs from the reference in " + std::to_string(bad) + " of " +
                 std::to_string(want.numel()) + " elements (max |diff| " + std::to_string(worst) + ")",
             ir::Severity::Warning);
      }
    }
    r_.runMetrics.emplace_back("max_abs_diff_vs_reference", maxDiff);
    r_.log.push_back(match ? "outputs match the reference executor (max |diff| " + std::to_string(maxDiff) + ")"
                           : "outputs DIFFER from the reference executor");
    return true;
  }

  PipelineResult r_;
  const JobControl& control_;
  PipelineStage current_ = PipelineStage::Import;
};

}  // namespace

std::shared_ptr<const sim::CostModel> studioCostModel() {
  static const auto model = std::make_shared<const sim::AnalyticCostModel>();
  return model;
}

PipelineResult runPipeline(PipelineRequest request, const JobControl& control) {
  request.to = std::min(request.to, PipelineStage::Run);
  if (request.to < request.from) request.to = request.from;
  return PipelineRun(std::move(request), control).run();
}

}  // namespace rammer::viz

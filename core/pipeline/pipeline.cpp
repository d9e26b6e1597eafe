#include "core/pipeline/pipeline.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>

#include "core/device/device_spec.h"
#include "core/pipeline/attention_choice.h"
#include "core/pipeline/generate_stage.h"
#include "core/pipeline/memory_check.h"
#include "core/pipeline/register_fit.h"
#include "core/pipeline/resident_choice.h"
#include "core/pipeline/schedule_edits_loading.h"
#include "core/pipeline/time_text.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/plan_figures.h"
#include "core/sim/simulator.h"

namespace rammer::pipeline {

namespace {

// Runs the stages of one request; each returns false after recording why.
class StagesRun {
 public:
  StagesRun(const Options& options, Artifacts given, Stage from, Stage to, const Control& control)
      : options_(options), control_(control), stages_(stagesBetween(from, to)) {
    values_ = std::move(given);
    // Every later stage of the path reads the first: dropping its values drops theirs.
    if (!stages_.empty()) values_.resetFrom(stages_.front());
    report_.from = from;
    report_.to = to;
  }

  StagesResult run() {
    for (Stage stage : stages_) {
      if (control_.cancelled()) break;
      current_ = stage;
      progress(std::string(stageVerb(stage)) + "...", 0);
      bool ok = false;
      try {
        ok = runStage(stage);
      } catch (const std::exception& e) {
        // Stages report bad input as diagnostics; this guard keeps a bug
        // (or an allocation failure on a huge model) from ending the program.
        error("internal error: " + std::string(e.what()));
      }
      if (!ok) {
        report_.failedStage = stage;
        values_.resetFrom(stage == Stage::Validate ? Stage::Simulate : stage);  // a failed validation keeps its report
        if (stage == Stage::Validate) values_.validation = std::move(failedValidation_);
        break;
      }
      report_.lastDone = stage;
    }
    // Work finished after a cancel is never used: the person asked for it to stop.
    if (control_.cancelled()) report_.cancelled = true;
    return StagesResult{std::move(values_), std::move(report_)};
  }

 private:
  // Progress of the whole request: each stage gets an equal share.
  void progress(const std::string& what, double withinStage) const {
    if (!control_.progress) return;
    const auto index = std::find(stages_.begin(), stages_.end(), current_) - stages_.begin();
    const double share = (static_cast<double>(index) + std::clamp(withinStage, 0.0, 1.0)) /
                         static_cast<double>(std::max<size_t>(stages_.size(), 1));
    control_.progress(what, static_cast<int>(std::lround(100 * share)));
  }

  void add(ir::Diagnostic d) { report_.diagnostics.push_back(inStage(current_, std::move(d))); }
  void add(const std::vector<ir::Diagnostic>& ds) {
    for (const auto& d : ds) add(d);
  }
  // Records why a stage failed; false, for the stage to return.
  bool fail(const std::vector<ir::Diagnostic>& ds) {
    add(ds);
    return false;
  }
  void error(std::string message, std::string node = {}) { add(ir::makeError(std::move(message), std::move(node))); }
  void warn(std::string message) {
    ir::Diagnostic d;
    d.severity = ir::Severity::Warning;
    d.message = std::move(message);
    add(std::move(d));
  }
  bool need(bool present, const char* what) {
    if (!present) error(std::string("no ") + what + " yet (an earlier stage has not run)");
    return present;
  }
  std::shared_ptr<const sim::CostModel> costModel() const { return options_.costModel ? options_.costModel : defaultCostModel(); }

  bool runStage(Stage s) {
    switch (s) {
      case Stage::Import: return importModel();
      case Stage::Optimize: return optimize();
      case Stage::Schedule: return schedulePlan();
      case Stage::Validate: return validatePlan();
      case Stage::Simulate: return simulate();
      case Stage::Run: return runPlanStage();
      case Stage::Generate: return generate();
      case Stage::Compile: return compile();
      case Stage::Export: return exportStage();
    }
    return false;
  }

  bool importModel() {
    const auto start = Clock::now();
    const std::string& path = options_.modelPath;
    if (path.empty()) {
      error("no model file given");
      return false;
    }
    if (auto problem = fileProblem(path, "model")) {
      add(std::move(*problem));
      return false;
    }
    const onnx_import::ImportOptions& options = options_.import;
    auto graph = onnx_import::importModel(path, options);
    if (!graph) {
      for (ir::Diagnostic d : graph.errors()) {
        if (d.file.empty()) d.file = path;
        add(std::move(d));
      }
      return false;
    }
    values_.original = std::make_shared<const ir::Graph>(std::move(graph).value());
    const ir::Graph& g = *values_.original;
    report_.log.push_back("imported " + std::filesystem::path(path).filename().string() + ": " +
                          std::to_string(g.numNodes()) + " nodes, " + std::to_string(g.inputs().size()) +
                          " input(s), batch " + (options.batch ? std::to_string(*options.batch) : std::string("as declared")) + " in " +
                          timeText(secondsSince(start)));
    return true;
  }

  bool optimize() {
    if (!need(values_.original != nullptr, "imported model")) return false;
    const auto start = Clock::now();
    auto graph = std::make_shared<ir::Graph>(*values_.original);
    passes::PassContext ctx;
    const bool epilogues = fusesEpilogues(options_.epilogues, options_.policy);
    auto records = passes::standardPipeline({.fuseAttention = options_.attention == AttentionFusion::Fused,
                                             .fuseEpilogues = epilogues,
                                             .fuseRecurrentCells = options_.fuseRecurrentCells})
                       .run(*graph, ctx);
    if (!records) return fail(records.errors());
    values_.passLog = std::move(records).value();
    values_.optimized = std::move(graph);
    // Auto: the fused alternative too, for the Schedule stage to weigh.
    if (options_.attention == AttentionFusion::Auto && mayHoldAttention(*values_.optimized)) {
      auto fused = std::make_shared<ir::Graph>(*values_.original);
      passes::PassContext fusedCtx;
      auto fusedRecords =
          passes::standardPipeline({.fuseAttention = true, .fuseEpilogues = epilogues,
                                    .fuseRecurrentCells = options_.fuseRecurrentCells})
              .run(*fused, fusedCtx);
      if (fusedRecords && fusedAttention(*fusedRecords)) values_.optimizedFused = std::move(fused);
    }
    const auto changed = std::count_if(values_.passLog.begin(), values_.passLog.end(), [](const auto& p) { return p.changed; });
    report_.log.push_back("optimized: " + std::to_string(values_.original->numNodes()) + " -> " +
                          std::to_string(values_.optimized->numNodes()) + " nodes, " + std::to_string(changed) + " of " +
                          std::to_string(values_.passLog.size()) + " passes changed the graph, in " +
                          timeText(secondsSince(start)) +
                          (values_.optimizedFused ? std::string("; attention can fuse, the Schedule stage weighs both") : std::string()));
    return true;
  }

  bool schedulePlan() {
    if (!need(values_.optimized != nullptr, "optimized graph")) return false;
    auto device = device::loadDevice(options_.device);
    if (!device) return fail(device.errors());
    auto edits = loadScheduleEdits(options_, *values_.optimized, values_.optimizedFused.get());
    if (!edits) return fail(edits.errors());
    const schedule::Constraints* constraints = &edits->constraints;
    const auto& graph = edits->namesFusedGraph ? values_.optimizedFused : values_.optimized;
    if (auto over = cpuRunMemoryProblem(*graph, options_.run)) {
      add(std::move(*over));
      return false;
    }
    const std::unique_ptr<schedule::Policy> policy = makePolicy({});
    progress("scheduling with " + schedule::policyName(options_.policy) + " on " + device->id + "...", 0.1);
    const auto start = Clock::now();
    auto plan = policy->schedule(*graph, *device, *constraints);
    if (!plan) {
      if (control_.cancelled()) return false;  // not a failure: the person asked to stop
      for (ir::Diagnostic d : plan.errors()) {
        if (d.file.empty()) d.file = options_.scheduleEditsFile;
        add(std::move(d));
      }
      return false;
    }
    schedule::Plan chosen = std::move(plan).value();
    if (edits->namesFusedGraph) {
      if (!chosen.graph) chosen.graph = values_.optimizedFused;
      report_.log.push_back("attention fused: the schedule edits name the fused graph's operators");
    } else if (values_.optimizedFused && !constraints->empty()) {
      report_.log.push_back("attention left unfused: the schedule edits name the unfused graph's operators");
    } else if (values_.optimizedFused && !weighFusedAttention(chosen, *policy, *device)) {
      return false;
    }
    if (auto r = weighResidentCells(chosen, [&] { return makePolicy({}, false)->schedule(*graph, *device, *constraints); },
                                    costModel())) {
      values_.residentCells = r, residentCells_ = r->resident;
      report_.log.push_back("persistent cells: " + r->summary);
    }
    if (options_.fitRegisters && !fitPlanRegisters(chosen, *graph, *device, *constraints)) return false;
    if (options_.launchFallback && constraints->empty() && weighsLaunches(options_.policy)) {
      values_.launches = weighLaunches(chosen, plannedFrom(*graph), *device, costModel(), [this] { return control_.cancelled(); });
      if (values_.launches) report_.log.push_back("launches: " + values_.launches->summary);
    }
    values_.scheduleSeconds = secondsSince(start);
    values_.plan = std::make_shared<const schedule::Plan>(std::move(chosen));
    const schedule::Plan& p = *values_.plan;
    const sim::PlanFigures f = sim::figuresOf(p);
    report_.log.push_back("scheduled with " + p.policy + " on " + p.device.id + ": " + std::to_string(f.programs) +
                          " program(s), " + std::to_string(f.rtasks) + " rTasks, " + std::to_string(f.barriers) +
                          " barriers in " + timeText(values_.scheduleSeconds) +
                          (constraints->empty() ? std::string() : " (with schedule edits)"));
    return true;
  }

  // The person's policy and cost model, its rKernels' registers raised to `needs` (register_fit.h).
  std::unique_ptr<schedule::Policy> makePolicy(const RegisterNeeds& needs, bool residentCells = true) const {
    schedule::PolicyOptions options = sim::policyOptions(costModel());
    options.residentCells = residentCells && residentCells_;
    options.cancelled = [this] { return control_.cancelled(); };
    options.ios = options_.ios;
    options.graphturbo = options_.graphturbo;
    options.kernelSource = withRegisterNeeds(options.kernelSource, std::make_shared<const RegisterNeeds>(needs));
    return schedule::makePolicy(options_.policy, std::move(options));
  }

  // The graph the chosen plan was planned from: the fused one when attention was fused by weighing.
  const ir::Graph& plannedFrom(const ir::Graph& given) const {
    return values_.attention && values_.attention->fused ? *values_.optimizedFused : given;
  }

  // Compiles `chosen`, planned again while it spills (without NVRTC: a warning). False on an error or a cancel.
  bool fitPlanRegisters(schedule::Plan& chosen, const ir::Graph& given, const device::DeviceSpec& device,
                        const schedule::Constraints& constraints) {
    progress("compiling the plan to fit its registers...", 0.8);
    auto fit = fitScheduledPlan(chosen, plannedFrom(given), chosen.graph, device, constraints,
                                [this](const RegisterNeeds& n) { return makePolicy(n); },
                                {options_.compile.nvrtcLibraries, options_.compile.arch, [this] { return control_.cancelled(); }});
    if (control_.cancelled()) return false;
    if (!fit && fit.errorText().find("needs NVRTC") == std::string::npos) return fail(fit.errors());
    if (!fit) warn("registers not fitted: " + fit.errorText());
    if (!fit) return true;
    for (std::string& line : fit->log) report_.log.push_back(std::move(line));
    if (fit->spillBytes > 0) warn("the compiled plan still spills " + std::to_string(fit->spillBytes) + " B");
    values_.registerFit = RegisterFitRecord{fit->replans, fit->advice.cutBefore.size(), fit->advice.needs.size(),
                                            fit->spillBytes};
    chosen = std::move(fit->plan);
    return true;
  }

  // Auto: plans the fused graph too and keeps it in `chosen` when the cost
  // model predicts it faster. False only on a cancel.
  bool weighFusedAttention(schedule::Plan& chosen, const schedule::Policy& policy, const device::DeviceSpec& device) {
    progress("scheduling with attention fused...", 0.5);
    const AttentionWeighing w = pipeline::weighFusedAttention(chosen, policy, device, values_.optimizedFused, costModel(),
                                                              [this] { return control_.cancelled(); });
    if (control_.cancelled()) return false;
    if (!w.warning.empty()) warn(w.warning);
    if (!w.decision) return true;
    const AttentionDecision& d = *w.decision;
    values_.attention = d;
    report_.log.push_back("attention " + std::string(d.fused ? "fused" : "left unfused") + ": predicted " +
                          fixedText(d.fusedUs, 1) + " us fused, " + fixedText(d.unfusedUs, 1) + " us unfused");
    return true;
  }

  // Policies honour the edits as given; an edit can still ask for something
  // unsafe (a pinned order that puts a consumer first), which the validator
  // catches: the plan is refused with the rTasks it would break.
  bool validatePlan() {
    if (!need(values_.plan != nullptr && values_.optimized != nullptr, "plan")) return false;
    const auto start = Clock::now();
    schedule::ValidationReport report = schedule::checkPlan(*values_.plan, *values_.planGraph());
    if (!report.ok()) {
      if (!options_.scheduleEditsFile.empty())
        add(ir::makeError("the schedule edits in " + options_.scheduleEditsFile + " break the plan"));
      add(schedule::diagnosticsOf(report));
      failedValidation_ = std::move(report);
      return false;
    }
    values_.validation = std::move(report);
    report_.log.push_back("validated: every rTask runs once, after its producers, without deadlock (" +
                          timeText(secondsSince(start)) + ")");
    return true;
  }

  bool simulate() {
    if (!need(values_.plan != nullptr, "plan")) return false;
    const auto start = Clock::now();
    sim::Simulator simulator(costModel());
    auto trace = simulator.run(*values_.plan);
    if (!trace) return fail(trace.errors());
    values_.predicted = std::make_shared<const sim::Trace>(std::move(trace).value());
    const sim::PlanFigures f = sim::figuresOf(*values_.plan, values_.predicted.get());
    report_.log.push_back("predicted " + fixedText(f.predictedUs, 1) + " us, SM efficiency " +
                          fixedText(100 * f.smEfficiency, 1) + "% (" + simulator.model().name() + ", " +
                          timeText(secondsSince(start)) + ")");
    return true;
  }

  bool runPlanStage() {
    if (!need(values_.plan != nullptr && values_.optimized != nullptr && values_.original != nullptr, "plan")) return false;
    auto run = runPlan(*values_.plan, *values_.planGraph(), *values_.original, options_.run, stageContext());
    if (!run) {
      if (control_.cancelled()) return false;
      add(run.errors());
      return false;
    }
    values_.run = std::make_shared<const RunRecord>(std::move(run).value());
    return true;
  }

  bool generate() {
    if (!need(values_.plan != nullptr && values_.optimized != nullptr, "plan")) return false;
    const auto start = Clock::now();
    auto program = generateCode(*values_.plan, *values_.planGraph(), options_.generate);
    if (!program) return fail(program.errors());
    values_.generated = std::make_shared<const codegen::GeneratedProgram>(std::move(program).value());
    report_.log.push_back("generated " + codeSummary(*values_.generated) + " in " + timeText(secondsSince(start)));
    return true;
  }

  bool compile() {
    if (!need(values_.generated != nullptr && values_.plan != nullptr, "generated code")) return false;
    const auto start = Clock::now();
    auto code = compileCode(*values_.plan, values_.generated, options_.compile, stageContext());
    if (!code) {
      if (!control_.cancelled()) add(code.errors());
      return false;
    }
    values_.compiled = std::make_shared<const CompiledCode>(std::move(code).value());
    report_.log.push_back(compileSummary(*values_.compiled) + " in " + timeText(secondsSince(start)));
    return true;
  }

  bool exportStage() {
    if (!need(values_.generated != nullptr && values_.original != nullptr, "generated code")) return false;
    const auto start = Clock::now();
    ProjectOptions options = options_.project;
    if (options.modelName.empty()) options.modelName = std::filesystem::path(options_.modelPath).filename().string();
    if (options.maxMemoryBytes == 0) options.maxMemoryBytes = options_.run.maxMemoryBytes;
    auto written = exportProject(*values_.generated, *values_.plan, *values_.planGraph(), *values_.original, options, stageContext());
    if (!written) {
      if (control_.cancelled()) return false;
      add(written.errors());
      return false;
    }
    values_.exported = std::make_shared<const codegen::ExportSummary>(std::move(written).value());
    report_.log.push_back("wrote " + std::to_string(values_.exported->files.size()) + " files to " + options.dir.string() +
                          " in " + timeText(secondsSince(start)));
    return true;
  }

  // What Run and Export see of this request.
  StageContext stageContext() {
    StageContext context;
    context.cancel = control_.cancel;
    context.progress = [this](const std::string& what, double within) { progress(what, within); };
    context.diagnose = [this](ir::Diagnostic d) { add(std::move(d)); };
    context.log = [this](std::string line) { report_.log.push_back(std::move(line)); };
    return context;
  }

  const Options& options_;
  const Control& control_;
  Artifacts values_;
  Report report_;
  const std::vector<Stage> stages_;
  Stage current_ = Stage::Import;
  std::optional<schedule::ValidationReport> failedValidation_;
  // The person's choice, then false once the Schedule stage found the plan faster without (resident_choice.h).
  bool residentCells_ = options_.residentCells;
};

}  // namespace

StagesResult runStages(const Options& options, Artifacts given, Stage from, Stage to, const Control& control) {
  to = std::min(to, kLastStage);
  if (to < from) to = from;
  return StagesRun(options, std::move(given), from, to, control).run();
}

Report Pipeline::run(Stage from, Stage to, const Control& control) {
  StagesResult r = runStages(options_, artifacts_, from, to, control);
  artifacts_ = std::move(r.artifacts);
  return std::move(r.report);
}

}  // namespace rammer::pipeline

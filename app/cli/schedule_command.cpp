// rammer schedule MODEL [--policy P] [--device D] [--schedule EDITS.json]
//                 [--batch N] [--json] [--trace OUT.json] [--decisions]
//                 [--max-rows N] [--profile-db FILE | --calibration FILE] [--redundant-barriers]
//                 [--compile [--keep-spills]] [--measured TRACE]
// (alias: rammer simulate.) Plans the model and predicts its run with the
// analytic cost model (or, with --profile-db, with the measured rTask times
// `rammer profile` recorded, falling back to the analytic model per rKernel;
// with --calibration, with a profile `rammer calibrate` fitted): the rPrograms (vEUs per SM and in total, why each
// starts), the rKernel chosen per operator and the rule behind it, the
// predicted latency and SM efficiency; --trace writes the predicted
// timeline as Chrome trace JSON (Perfetto, chrome://tracing);
// --redundant-barriers lists the barriers the plan would stay valid without
// (each alone: deleting two redundant ones together may break something).
//
// --compile compiles the plan's CUDA with NVRTC for the device's
// architecture (no GPU needed) and reports what ptxas gave each program:
// registers, stack and spills (its rKernel functions' included), blocks per
// SM; the rKernels then show the compiled registers, and a program whose
// vEUs the compiled kernel cannot keep co-resident is refused. A plan that
// spills is planned again first, its spilling rKernels given more registers
// (pipeline/register_fit.h); --keep-spills compiles the policy's plan as is.
//
// --measured TRACE sets the prediction beside a measured trace of the same
// model (the lease recorder's, tests/data/gpu_traces; xz or plain JSON):
// the measured latency against the predicted one, and per operator (by
// name) the mean rTask time of each, the furthest first, so a person sees
// where the cost model is wrong. Rows whose rKernel or rTask count differs
// (the trace came from another plan) are listed after the others.
//
// --json keys: model, policy, device, device_name, cost_model,
// schedule_seconds, predicted_latency_us, sm_efficiency (0..1), veus and
// veus_per_sm (the largest program's), rtasks, barriers, launch_overhead_us
// (all launches), barrier_wait_veu_us (summed over vEUs), dispatches and
// dispatch_veu_us (a dynamic plan's ready-queue takes), dram_bytes (the
// rKernels' global-memory traffic less their L2 re-reads), attention (null
// unless --fuse-attention=auto planned both ways: {fused, fused_us,
// unfused_us}), launches (null unless programs predicted slower than
// their operators as launches were planned as launches: {replaced[],
// persistent_us, chosen_us, launches_us}), resident_cells (null unless the
// policy planned cells with their weights in shared memory: {resident (the
// plan kept), cells, resident_us, reloading_us}), register_fit (null unless --compile fitted the plan's
// registers: {replans, cuts, raised, spill_bytes}), critical_path {length_us, operators, rtasks, compute_us,
// handoff_us, queueing_us, launch_us, handoffs, queued} (the predicted
// trace's longest chain of producer-to-consumer rTasks and where its time
// goes: core/sim/critical_path.h), programs[] {index,
// veus_per_sm, veus, rtasks, barriers, start_us, end_us, cut_reason,
// claim_shards (null unless dynamic)},
// kernels[] per operator {op, type, view, kernel (null for views), family,
// rule, rtasks, threads, shared_bytes, flops, bytes, l2_bytes, program}, and with
// --decisions decisions[], with --trace the trace file, with
// --redundant-barriers redundant_barriers[] {program, veu, order, guards},
// with --compile compiled {arch, nvrtc, programs[] {program, kernel,
// registers, stack_bytes, spill_bytes, function_spill_bytes,
// blocks_per_sm, grid_blocks (the vEUs launched: those with rTasks; an
// ordinary kernel's rTasks), persistent,
// co_resident, limited_by, spilling_functions[] {function,
// registers, spill_bytes}}} and kernels[].registers (the
// compiled count of the program the operator runs in), with --measured
// measured {file, source, total_us, error ((predicted - measured) /
// measured), only_predicted, only_measured, critical_path (the measured
// run's, its operators matched by name), ops[] {op, predicted_kernel,
// measured_kernel, predicted_rtasks, measured_rtasks, predicted_us,
// measured_us (mean per rTask), ratio}}.
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <variant>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/model_loading.h"
#include "app/cli/pipeline_driver.h"
#include "app/cli/plan_loading.h"
#include "app/cli/trace_file.h"
#include "core/ops/model_summary.h"
#include "core/schedule/barrier_removal.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/calibration.h"
#include "core/sim/critical_path.h"
#include "core/sim/measured_trace.h"
#include "core/sim/op_time_error.h"
#include "core/sim/profile_db.h"
#include "core/sim/profiled_cost_model.h"
#include "core/sim/plan_figures.h"

namespace rammer::cli {

namespace {

struct ScheduleOptions {
  std::string model;
  pipeline::PlanChoices plan;
  bool json = false;
  std::string traceFile;
  bool decisions = false;
  size_t maxRows = 40;
  std::string profileDb;  // measured rTask times (rammer profile); empty: analytic only
  std::string calibration;  // a fitted profile (rammer calibrate); empty: analytic only
  bool redundantBarriers = false;
  bool compile = false;  // NVRTC's registers and spills per program
  bool keepSpills = false;  // --compile: the policy's plan as it is, not re-planned while it spills
  std::string measured;  // a measured trace to compare the prediction with
};

// The prediction beside a measured trace of the model.
struct MeasuredComparison {
  sim::Trace trace;
  sim::OpTimeComparison ops;
};

struct RedundantBarrier {
  int program = 0;
  schedule::Slot at;
  std::string guards;  // the rTask right after it, "op[r]"
};

// Barriers the plan is still valid without, each judged alone.
std::vector<RedundantBarrier> findRedundantBarriers(const schedule::Plan& plan, const ir::Graph& graph) {
  auto removal = schedule::BarrierRemoval::analyse(plan, graph);
  if (!removal) throwDiagnostics(removal.errors(), "judging the plan's barriers");
  std::vector<RedundantBarrier> out;
  for (const auto& [p, at] : removal->barriers()) {
    auto verdict = removal->without(p, at);
    // A barrier another barrier waits on is never redundant here: the edit
    // would renumber that wait.
    if (!verdict || verdict->needed) continue;
    RedundantBarrier r{p, at, "the end of the stream"};
    const auto& stream = plan.programs[static_cast<size_t>(p)].program.stream(at.veu);
    for (size_t o = static_cast<size_t>(at.order); o < stream.size(); ++o)
      if (const auto* e = std::get_if<schedule::Exec>(&stream[o])) {
        r.guards = plan.ops[static_cast<size_t>(e->task.op)].name + "[" + std::to_string(e->task.rtask) + "]";
        break;
      }
    out.push_back(std::move(r));
  }
  return out;
}

Json toJson(const sim::CriticalPath& path) {
  return {{"length_us", path.lengthUs},   {"operators", path.operators}, {"rtasks", path.links.size()},
          {"compute_us", path.computeUs}, {"handoff_us", path.handoffUs}, {"queueing_us", path.queueUs},
          {"launch_us", path.launchUs},   {"handoffs", path.handoffs},   {"queued", path.queued},
          {"handoff_median_us", path.handoffQuantileUs(0.5)},
          {"handoff_p99_us", path.handoffQuantileUs(0.99)},
          {"handoff_max_us", path.handoffQuantileUs(1.0)}};
}

Json toJson(const ScheduleOptions& o, const PlannedModel& pm, const sim::Trace& trace, const sim::CostModel& model,
            const std::vector<RedundantBarrier>& redundant, const pipeline::CompiledCode* compiled,
            const MeasuredComparison* measured) {
  const schedule::Plan& plan = *pm.plan;
  const sim::PlanFigures s = sim::figuresOf(plan, &trace);
  const std::vector<int> programOf = sim::programOfOps(plan);
  Json j;
  j["model"] = o.model;
  j["policy"] = plan.policy;
  j["device"] = pm.device.id;
  j["device_name"] = pm.device.name;
  j["cost_model"] = model.name();
  j["schedule_seconds"] = pm.scheduleSeconds;
  j["predicted_latency_us"] = s.predictedUs;
  j["sm_efficiency"] = s.smEfficiency;
  j["veus"] = s.maxVEUs;
  j["veus_per_sm"] = s.maxVEUsPerSM;
  j["rtasks"] = plan.numRTasks();
  j["barriers"] = s.barriers;
  j["launch_overhead_us"] = s.launchOverheadUs;
  // Summed over vEUs: vEU-microseconds spent waiting at barriers.
  j["barrier_wait_veu_us"] = s.barrierWaitVeuUs;
  j["dram_bytes"] = s.dramBytes;
  // Dynamic programs (--policy dynamic): rTasks taken from the ready queue.
  auto metric = [&](const char* name) { return trace.metrics.count(name) ? trace.metrics.at(name) : 0.0; };
  j["dispatches"] = metric("dispatches");
  j["dispatch_veu_us"] = metric("dispatch_veu_us");
  j["critical_path"] = toJson(sim::criticalPath(plan, trace));
  j["launches"] = nullptr;
  if (pm.launches)
    j["launches"] = {{"replaced", pm.launches->replaced},
                     {"persistent_us", pm.launches->persistentUs},
                     {"chosen_us", pm.launches->chosenUs},
                     {"launches_us", pm.launches->launchesUs}};
  j["resident_cells"] = nullptr;
  if (pm.residentCells)
    j["resident_cells"] = {{"resident", pm.residentCells->resident},
                           {"cells", pm.residentCells->cells},
                           {"resident_us", pm.residentCells->residentUs},
                           {"reloading_us", pm.residentCells->reloadingUs}};
  j["register_fit"] = nullptr;
  if (pm.registerFit)
    j["register_fit"] = {{"replans", pm.registerFit->replans},
                         {"cuts", pm.registerFit->cuts},
                         {"raised", pm.registerFit->raised},
                         {"spill_bytes", pm.registerFit->spillBytes}};
  j["attention"] = nullptr;
  if (pm.attention)
    j["attention"] = {{"fused", pm.attention->fused}, {"fused_us", pm.attention->fusedUs}, {"unfused_us", pm.attention->unfusedUs}};
  j["programs"] = Json::array();
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const auto& info = plan.programs[p];
    Json e;
    e["index"] = p;
    e["veus_per_sm"] = info.veusPerSM;
    e["veus"] = info.program.numVEUs();
    e["rtasks"] = info.numRTasks();
    e["barriers"] = info.program.numBarriers();
    e["start_us"] = trace.programs.at(p).startUs;
    e["end_us"] = trace.programs.at(p).endUs;
    e["cut_reason"] = info.cutReason;
    // A dynamic program's claim counters per operator (null: a static program).
    e["claim_shards"] = info.dynamic ? Json(info.dynamic->claimShards) : Json(nullptr);
    j["programs"].push_back(std::move(e));
  }
  j["kernels"] = Json::array();
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const auto& op = plan.ops[i];
    Json e;
    e["op"] = op.name;
    e["type"] = op.opType;
    e["view"] = op.isView;
    if (op.isView) {
      e["kernel"] = nullptr;
    } else {
      e["kernel"] = op.kernel.name;
      e["family"] = op.kernel.family;
      e["rule"] = op.kernelRule;
      e["rtasks"] = op.kernel.numRTasks;
      e["threads"] = op.kernel.threads();
      e["shared_bytes"] = op.kernel.sharedBytes;
      e["flops"] = op.kernel.flops;
      e["bytes"] = op.kernel.bytes;
      e["l2_bytes"] = op.kernel.l2Bytes;
      e["program"] = programOf[i];
      if (compiled) e["registers"] = compiled->plan->ops[i].kernel.regsEstimate;
    }
    j["kernels"].push_back(std::move(e));
  }
  if (o.decisions) j["decisions"] = plan.decisions;
  if (!o.traceFile.empty()) j["trace"] = o.traceFile;
  if (compiled) {
    Json c;
    c["arch"] = compiled->arch;
    c["nvrtc"] = compiled->version;
    c["programs"] = Json::array();
    for (const runtime::ProgramResources& r : compiled->programs) {
      Json spilling = Json::array();  // the rKernel functions that spill, by name
      for (const auto& [name, usage] : r.functions)
        if (usage.spillStoreBytes > 0)
          spilling.push_back({{"function", name}, {"registers", usage.registers}, {"spill_bytes", usage.spillStoreBytes}});
      c["programs"].push_back({{"program", r.program},
                               {"kernel", r.kernel},
                               {"registers", r.usage.registers},
                               {"stack_bytes", r.usage.stackBytes},
                               {"spill_bytes", r.spillStoreBytes()},
                               {"function_spill_bytes", r.functionSpillStoreBytes},
                               {"blocks_per_sm", r.occupancy.blocksPerSM},
                               {"grid_blocks", r.gridBlocks},
                               {"persistent", r.persistent},
                               {"co_resident", r.coResident},
                               {"limited_by", device::limitName(r.occupancy.limitedBy)},
                               {"spilling_functions", std::move(spilling)}});
    }
    j["compiled"] = std::move(c);
  }
  if (o.redundantBarriers) {
    j["redundant_barriers"] = Json::array();
    for (const auto& r : redundant)
      j["redundant_barriers"].push_back(
          {{"program", r.program}, {"veu", r.at.veu}, {"order", r.at.order}, {"guards", r.guards}});
  }
  if (measured) {
    Json m{{"file", o.measured}, {"source", measured->trace.source}, {"total_us", measured->trace.totalUs},
           {"error", (trace.totalUs - measured->trace.totalUs) / measured->trace.totalUs},
           {"only_predicted", measured->ops.onlyPredicted}, {"only_measured", measured->ops.onlyMeasured},
           {"critical_path", toJson(sim::criticalPath(plan, measured->trace))}};
    m["ops"] = Json::array();
    for (const auto& e : measured->ops.ops)
      m["ops"].push_back({{"op", e.op}, {"predicted_kernel", e.predictedKernel}, {"measured_kernel", e.measuredKernel},
                          {"predicted_rtasks", e.predictedRTasks}, {"measured_rtasks", e.measuredRTasks},
                          {"predicted_us", e.predictedUs}, {"measured_us", e.measuredUs}, {"ratio", e.ratio()}});
    j["measured"] = std::move(m);
  }
  return j;
}

// A cut reason for the table: a wave can name a hundred operators, so a
// long list in parentheses keeps its first name and a count (--json has the
// whole text).
std::string shortReason(const std::string& reason) {
  constexpr size_t kMax = 60;
  const size_t open = reason.find(" (");
  if (open == std::string::npos) return reason;
  size_t close = std::string::npos;
  for (size_t i = open + 1, depth = 0; i < reason.size() && close == std::string::npos; ++i) {
    if (reason[i] == '(') ++depth;
    if (reason[i] == ')' && --depth == 0) close = i;
  }
  if (close == std::string::npos || close - open <= kMax) return reason;
  const std::string list = reason.substr(open + 2, close - open - 2);
  const size_t names = static_cast<size_t>(std::count(list.begin(), list.end(), ',')) + 1;
  const std::string first = list.substr(0, list.find(','));
  return reason.substr(0, open + 2) + first + ", ... " + std::to_string(names - 1) + " more" + reason.substr(close);
}

// "... 3051 more (--max-rows 0 lists all)" when a table was cut.
void printMore(size_t shown, size_t total) {
  if (shown < total) fmt::print("  ... {} more (--max-rows 0 lists all)\n", total - shown);
}

// The critical path's line: its length and where the time goes.
void printCriticalPath(const char* label, const sim::CriticalPath& path) {
  if (path.empty()) return;
  const auto share = [&](double us) { return 100 * path.share(us); };
  fmt::print("{:<10} {:.1f} us through {} operators ({} rTasks): compute {:.0f}%, hand-offs {:.0f}% ({}: median "
             "{:.2f} us, p99 {:.2f}), queueing {:.0f}% ({} rTasks behind other work), launches {:.0f}%\n",
             label, path.lengthUs, path.operators, path.links.size(), share(path.computeUs), share(path.handoffUs),
             path.handoffs, path.handoffQuantileUs(0.5), path.handoffQuantileUs(0.99), share(path.queueUs), path.queued,
             share(path.launchUs));
}

void printMeasured(const MeasuredComparison& m, const schedule::Plan& plan, const sim::Trace& predicted, size_t rows) {
  const double err = (predicted.totalUs - m.trace.totalUs) / m.trace.totalUs;
  fmt::print("measured   {:.1f} us ({}); predicted {:.1f} us, {:+.0f}%\n", m.trace.totalUs, m.trace.source,
             predicted.totalUs, 100 * err);
  printCriticalPath("  critical", sim::criticalPath(plan, m.trace));
  fmt::print("  furthest from the measurement, per operator (mean us per rTask; * another rKernel or rTask count ran)\n");
  fmt::print("  {:<32} {:>12} {:>12} {:>7}  {}\n", "op", "predicted", "measured", "ratio", "rKernel");
  const size_t n = std::min(rows, m.ops.ops.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& e = m.ops.ops[i];
    const std::string kernel = e.sameKernel() ? e.predictedKernel
                                              : fmt::format("* {} x{} (measured {} x{})", e.predictedKernel,
                                                            e.predictedRTasks, e.measuredKernel, e.measuredRTasks);
    fmt::print("  {:<32} {:>12.2f} {:>12.2f} {:>7.2f}  {}\n", e.op, e.predictedUs, e.measuredUs, e.ratio(), kernel);
  }
  if (n < m.ops.ops.size()) fmt::print("  ... {} more (--max-rows 0 lists all)\n", m.ops.ops.size() - n);
  if (m.ops.onlyPredicted + m.ops.onlyMeasured > 0)
    fmt::print("  {} operator(s) only in the plan, {} only in the trace\n", m.ops.onlyPredicted, m.ops.onlyMeasured);
}

void printText(const ScheduleOptions& o, const PlannedModel& pm, const sim::Trace& trace, const sim::CostModel& model,
               const std::vector<RedundantBarrier>& redundant, const pipeline::CompiledCode* compiled,
               const MeasuredComparison* measured) {
  const schedule::Plan& plan = *pm.plan;
  const sim::PlanFigures s = sim::figuresOf(plan, &trace);
  const size_t rows = o.maxRows == 0 ? SIZE_MAX : o.maxRows;
  fmt::print("model      {}\n", o.model);
  fmt::print("policy     {} on {} ({}), scheduled in {}\n", plan.policy, pm.device.id, pm.device.name,
             formatSeconds(pm.scheduleSeconds));
  const std::string perSM = s.minVEUsPerSM == s.maxVEUsPerSM ? std::to_string(s.maxVEUsPerSM)
                                                              : fmt::format("{}-{}", s.minVEUsPerSM, s.maxVEUsPerSM);
  fmt::print("plan       {} program(s), {} rTasks, {} barriers; {} vEUs/SM, up to {} vEUs; {} of DRAM traffic\n",
             s.programs, s.rtasks, s.barriers, perSM, s.maxVEUs, ops::formatBytes(static_cast<int64_t>(s.dramBytes)));
  fmt::print("predicted  {:.1f} us, SM efficiency {:.1f}% ({}: a prediction, not a measurement)\n", s.predictedUs,
             100 * s.smEfficiency, model.name());
  printCriticalPath("critical", sim::criticalPath(plan, trace));
  if (pm.residentCells) fmt::print("cells      {}\n", pm.residentCells->summary);
  if (pm.launches) fmt::print("launches   {} (--keep-persistent keeps them)\n", pm.launches->summary);
  if (pm.registerFit)
    fmt::print("registers  fitted by compiling: {} re-plan(s), {} program cut(s), {} rKernel(s) given more registers; "
               "{}\n",
               pm.registerFit->replans, pm.registerFit->cuts, pm.registerFit->raised,
               pm.registerFit->spillBytes ? fmt::format("still {} B spilled", pm.registerFit->spillBytes)
                                          : std::string("nothing spills"));
  if (pm.attention)
    fmt::print("attention  {}: predicted {:.1f} us fused, {:.1f} us unfused (--fuse-attention=on|off forces one)\n",
               pm.attention->fused ? "fused" : "left unfused", pm.attention->fusedUs, pm.attention->unfusedUs);

  fmt::print("programs\n");
  fmt::print("  {:>5} {:>7} {:>6} {:>8} {:>8} {:>11} {:>11}  {}\n", "#", "vEUs/SM", "vEUs", "rTasks", "barriers",
             "start us", "end us", "cut reason");
  const size_t np = std::min(rows, plan.programs.size());
  for (size_t p = 0; p < np; ++p) {
    const auto& info = plan.programs[p];
    fmt::print("  {:>5} {:>7} {:>6} {:>8} {:>8} {:>11.2f} {:>11.2f}  {}\n", p, info.veusPerSM,
               info.program.numVEUs(), info.numRTasks(), info.program.numBarriers(), trace.programs[p].startUs,
               trace.programs[p].endUs, shortReason(info.cutReason));
  }
  printMore(np, plan.programs.size());
  for (size_t p = 0; p < np; ++p)
    if (const auto& d = plan.programs[p].dynamic)
      fmt::print("  program {} is dynamic: {} operators in its ready queue ({} at launch), {} claim shard{} each\n", p,
                 d->ops.size(), d->initial.size(), d->claimShards, d->claimShards == 1 ? "" : "s");

  fmt::print("rKernels\n");
  const std::vector<int> programOf = sim::programOfOps(plan);
  size_t nameWidth = 2, typeWidth = 4, kernelWidth = 7;
  const size_t nk = std::min(rows, plan.ops.size());
  for (size_t i = 0; i < nk; ++i) {
    nameWidth = std::max(nameWidth, plan.ops[i].name.size());
    typeWidth = std::max(typeWidth, plan.ops[i].opType.size());
    kernelWidth = std::max(kernelWidth, plan.ops[i].kernel.name.size());
  }
  fmt::print("  {:<{}}  {:<{}}  {:<{}}  {:>7} {:>7} {:>7}  {}\n", "op", nameWidth, "type", typeWidth, "rKernel",
             kernelWidth, "rTasks", "threads", "program", "rule");
  for (size_t i = 0; i < nk; ++i) {
    const auto& op = plan.ops[i];
    if (op.isView) {
      fmt::print("  {:<{}}  {:<{}}  (view: no rTasks)\n", op.name, nameWidth, op.opType, typeWidth);
      continue;
    }
    fmt::print("  {:<{}}  {:<{}}  {:<{}}  {:>7} {:>7} {:>7}  {}\n", op.name, nameWidth, op.opType, typeWidth,
               op.kernel.name, kernelWidth, op.kernel.numRTasks, op.kernel.threads(), programOf[i], op.kernelRule);
  }
  printMore(nk, plan.ops.size());

  if (o.decisions) {
    fmt::print("decisions\n");
    for (const auto& d : plan.decisions) fmt::print("  {}\n", d);
  }
  if (o.redundantBarriers) {
    fmt::print("redundant  {} of {} barriers: the plan stays valid without any one of them (not all at once)\n",
               redundant.size(), s.barriers);
    const size_t nr = std::min(rows, redundant.size());
    for (size_t i = 0; i < nr; ++i)
      fmt::print("  program {} vEU {} order {}, before {}\n", redundant[i].program, redundant[i].at.veu,
                 redundant[i].at.order, redundant[i].guards);
    printMore(nr, redundant.size());
  }
  if (compiled) {
    fmt::print("compiled   NVRTC {} for {}: what ptxas gave each program\n", compiled->version,
               compiled->arch);
    const size_t nc = std::min(rows, compiled->programs.size());
    for (size_t i = 0; i < nc; ++i) fmt::print("  {}\n", compiled->programs[i].summary);
    printMore(nc, compiled->programs.size());
  }
  if (measured) printMeasured(*measured, plan, trace, rows);
  if (!o.traceFile.empty())
    fmt::print("trace      {} ({} rTask and {} barrier events)\n", o.traceFile, trace.tasks.size(),
               trace.barriers.size());
}

// The measured database in front of the analytic model, for the device planned for.
std::shared_ptr<const sim::CostModel> profiledModel(const std::string& file, const std::string& device) {
  requireFile(file, "profile database");
  auto db = sim::loadProfileDB(file);
  if (!db) throwDiagnostics(db.errors(), file);
  auto spec = device::loadDevice(device);
  if (spec && db->device() != spec->id)
    throw CliError(fmt::format("{}: holds measurements for device '{}', not '{}' (--device)", file, db->device(),
                               spec->id));
  return std::make_shared<const sim::ProfiledCostModel>(std::make_shared<const sim::ProfileDB>(std::move(db).value()),
                                                        std::make_shared<const sim::AnalyticCostModel>());
}

// A profile `rammer calibrate` wrote, in front of the analytic model.
std::shared_ptr<const sim::CostModel> calibratedModel(const std::string& file, const std::string& device) {
  requireFile(file, "calibration");
  auto c = sim::loadCalibration(file);
  if (!c) throwDiagnostics(c.errors(), file);
  auto spec = device::loadDevice(device);
  if (spec && c->device != spec->id)
    throw CliError(fmt::format("{}: is fitted for device '{}', not '{}' (--device)", file, c->device, spec->id));
  auto calibration = std::make_shared<const sim::Calibration>(std::move(c).value());
  return std::make_shared<const sim::CalibratedCostModel>(std::move(calibration));
}

int runSchedule(ScheduleOptions o, const GlobalOptions& global) {
  requireFile(o.model, "model");
  std::optional<MeasuredComparison> measured;
  if (!o.measured.empty()) {
    requireFile(o.measured, "measured trace");
    auto t = sim::loadMeasuredTrace(o.measured);
    if (!t) throwDiagnostics(t.errors(), o.measured);
    measured = MeasuredComparison{std::move(t).value(), {}};
  }
  if (!o.profileDb.empty()) o.plan.costModel = profiledModel(o.profileDb, o.plan.device);
  if (!o.calibration.empty()) o.plan.costModel = calibratedModel(o.calibration, o.plan.device);
  Progress progress(global);
  o.plan.fitRegisters = o.compile && !o.keepSpills;
  pipeline::Pipeline p(pipeline::optionsFor(o.model, o.plan));
  runStages(p, pipeline::Stage::Import, pipeline::Stage::Simulate, progress);
  const PlannedModel pm = plannedOf(p);
  const ir::Graph& graph = *pm.optimized;
  const sim::Trace& trace = *pm.predicted;
  // The model the policy planned and the simulator predicted with.
  const std::shared_ptr<const sim::CostModel> model = o.plan.costModel ? o.plan.costModel : pipeline::defaultCostModel();
  if (!o.traceFile.empty()) writeTraceFile(o.traceFile, trace);

  std::vector<RedundantBarrier> redundant;
  if (o.redundantBarriers) {
    progress.status("judging barriers...");
    redundant = findRedundantBarriers(*pm.plan, graph);
  }
  if (o.compile) {
    progress.status("compiling with NVRTC...");
    p.options().generate = codegen::CodegenOptions{};  // plain CUDA: the code whose latency a run reports
    runStages(p, pipeline::Stage::Generate, pipeline::Stage::Compile, progress);
  }
  const pipeline::CompiledCode* c = p.artifacts().compiled.get();
  if (measured) measured->ops = sim::compareOpTimes(trace, measured->trace);
  const MeasuredComparison* m = measured ? &*measured : nullptr;
  if (o.json) fmt::print("{}\n", toJson(o, pm, trace, *model, redundant, c, m).dump(2));
  else printText(o, pm, trace, *model, redundant, c, m);
  return 0;
}

}  // namespace

Command addScheduleCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<ScheduleOptions>();
  CLI::App* cmd = app.add_subcommand(
      "schedule", "Plan a model (rPrograms, vEUs, rKernels) and predict its latency and SM efficiency");
  cmd->alias("simulate");
  cmd->add_option("MODEL", opts->model, "ONNX model file")->required();
  addPlanOptions(cmd, opts->plan);
  cmd->add_flag("--json", opts->json, "Print one JSON object instead of text");
  cmd->add_option("--trace", opts->traceFile, "Write the predicted timeline as Chrome trace JSON (Perfetto)");
  cmd->add_flag("--decisions", opts->decisions, "List the policy's decisions, one per line");
  cmd->add_flag("--compile", opts->compile,
                "Compile the plan's CUDA with NVRTC for the device (no GPU needed): each program's registers, stack "
                "and spills as ptxas reports them; refuses a program the compiled kernel cannot keep co-resident. The "
                "plan is re-planned while it spills: its spilling rKernels get more registers (fewer vEUs per SM) or "
                "other variants");
  cmd->add_flag("--keep-spills", opts->keepSpills,
                "With --compile: compile the policy's plan as it is, without re-planning it while it spills");
  cmd->add_option("--profile-db", opts->profileDb,
                  "Plan and predict with the rTask times measured by `rammer profile` (JSON); the analytic model "
                  "covers rKernels it lacks");
  cmd->add_option("--calibration", opts->calibration,
                  "Plan and predict with a cost model `rammer calibrate` fitted to measured GPU runs "
                  "(resources/calibrations/h100.json)")
      ->excludes("--profile-db");
  cmd->add_flag("--redundant-barriers", opts->redundantBarriers,
                "List barriers the plan would stay valid without (each judged alone)");
  cmd->add_option("--measured", opts->measured,
                  "A measured trace of this model (tests/data/gpu_traces; xz or JSON): list the operators whose "
                  "predicted rTask time is furthest from the measured one");
  cmd->add_option("--max-rows", opts->maxRows, "Rows per table in the text output (0: all)")->capture_default_str();
  return Command{cmd, [opts, &global] { return runSchedule(*opts, global); }};
}

}  // namespace rammer::cli

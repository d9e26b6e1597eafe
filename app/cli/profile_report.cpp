#include "app/cli/profile_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>

#include "core/pipeline/pipeline.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/profiled_cost_model.h"

namespace rammer::cli {

namespace {

// One rKernel measured in this run, with the analytic model's time.
struct KernelRow {
  sim::ProfileEntry entry;
  double analyticUs = 0;
  double totalUs() const { return entry.taskTime.medianUs * static_cast<double>(entry.taskTime.samples); }
};

std::vector<KernelRow> kernelRows(const ProfileReport& r) {
  const sim::AnalyticCostModel analytic;
  std::map<std::string, const kernels::RKernel*> byKey;
  for (const schedule::PlannedOp& op : r.plan.ops) byKey.try_emplace(sim::profileKey(op.kernel), &op.kernel);
  std::vector<KernelRow> rows;
  for (const sim::ProfileEntry& e : r.result.db.entries()) {
    KernelRow row{e, 0};
    if (auto it = byKey.find(e.key); it != byKey.end())
      row.analyticUs = analytic.taskTimeUs(*it->second, r.plan.device, sim::TaskContext{e.veusPerSM, 0, 0, 0});
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const KernelRow& a, const KernelRow& b) { return a.totalUs() > b.totalUs(); });
  return rows;
}

Json metricJson(const profiler::MetricValue& m) {
  return Json{{"value", m.value}, {"measured", m.measured}, {"source", m.source}};
}

Json statsJson(const sim::TimeStats& s) {
  if (s.samples <= 0) return nullptr;
  return Json{{"samples", s.samples}, {"median", s.medianUs}, {"min", s.minUs}, {"max", s.maxUs}};
}

// "85.2" for a counter, "85.2~" for an estimate.
std::string metricText(const profiler::MetricValue& m, int decimals) {
  return fmt::format("{:.{}f}{}", m.value, decimals, m.measured ? " " : "~");
}

}  // namespace

namespace {

// The pipeline's Simulate stage on a given plan with `model`.
ir::Result<double> predictedUs(const std::shared_ptr<const schedule::Plan>& plan,
                               std::shared_ptr<const sim::CostModel> model) {
  pipeline::Options options;
  options.costModel = std::move(model);
  pipeline::Pipeline p(std::move(options));
  p.artifacts().plan = plan;
  const pipeline::Report r = p.run(pipeline::Stage::Simulate, pipeline::Stage::Simulate);
  if (!r.ok()) return r.errors();
  return p.artifacts().predicted->totalUs;
}

}  // namespace

ir::Result<ProfilePredictions> predictWithDatabase(const schedule::Plan& plan, const sim::ProfileDB& db) {
  auto analytic = std::make_shared<const sim::AnalyticCostModel>();
  auto profiled = std::make_shared<const sim::ProfiledCostModel>(std::make_shared<const sim::ProfileDB>(db), analytic);
  const auto shared = std::make_shared<const schedule::Plan>(plan);
  auto a = predictedUs(shared, analytic);
  if (!a) return a.errors();
  auto p = predictedUs(shared, profiled);
  if (!p) return p.errors();
  return ProfilePredictions{*a, *p};
}

Json profileReportJson(const ProfileReport& r) {
  const profiler::ProfileResult& res = r.result;
  Json j;
  j["model"] = r.model;
  j["gpu"] = res.deviceName;
  j["arch"] = res.arch;
  j["device"] = r.plan.device.id;
  j["policy"] = r.policy;
  j["programs"] = r.plan.programs.size();
  j["rtasks"] = r.plan.numRTasks();
  j["capability"] = {{"kernel_timestamps", res.capability.kernelTimestamps},
                     {"counters", res.capability.counters},
                     {"message", res.capability.message}};
  j["kernel_times"] = res.timestampsNote;
  j["counters"] = res.countersNote;
  j["latency_us"] = statsJson(sim::summarizeTimes(res.latencyUs));
  Json launches = Json::array();
  for (const profiler::ProgramProfile& p : res.programs)
    launches.push_back(Json{{"program", p.program},
                            {"kernel", p.kernel},
                            {"veus", p.gridBlocks},
                            {"threads", p.blockThreads},
                            {"persistent", p.persistent},
                            {"blocks_per_sm", p.blocksPerSM},
                            {"registers", p.registers},
                            {"kernel_us", statsJson(p.kernelTime)},
                            {"rtask_span_us", p.rtaskSpanUs},
                            {"sm_efficiency_pct", metricJson(p.smEfficiencyPct)},
                            {"warp_activity_pct", metricJson(p.warpActivityPct)},
                            {"sm_cycles_active", metricJson(p.smCyclesActive)}});
  j["launches"] = std::move(launches);
  Json kernels = Json::array();
  for (const KernelRow& k : kernelRows(r))
    kernels.push_back(Json{{"kernel", k.entry.kernelName},
                           {"key", k.entry.key},
                           {"op_type", k.entry.opType},
                           {"veus_per_sm", k.entry.veusPerSM},
                           {"rtasks", k.entry.numRTasks},
                           {"samples", k.entry.taskTime.samples},
                           {"median_us", k.entry.taskTime.medianUs},
                           {"analytic_us", k.analyticUs}});
  j["rkernels"] = std::move(kernels);
  j["db"] = {{"file", r.dbFile}, {"entries", r.db.size()}, {"measured_this_run", res.db.size()}};
  j["predicted_us"] = {{"analytic", r.predicted.analyticUs}, {"profiled", r.predicted.profiledUs}};
  return j;
}

std::string profileReportText(const ProfileReport& r, int maxRows) {
  const profiler::ProfileResult& res = r.result;
  const sim::TimeStats latency = sim::summarizeTimes(res.latencyUs);
  std::string out;
  auto line = [&out](const std::string& s) { out += s + "\n"; };
  line(fmt::format("model     {}", r.model));
  line(fmt::format("device    {} ({}), plan for {}, policy {}: {} programs, {} rTasks", res.deviceName, res.arch,
                   r.plan.device.id, r.policy, r.plan.programs.size(), r.plan.numRTasks()));
  line(fmt::format("kernels   {}", res.timestampsNote));
  line(fmt::format("counters  {}", res.countersNote));
  line(fmt::format("latency   median {:.1f} us over {} runs (min {:.1f}, max {:.1f})", latency.medianUs,
                   latency.samples, latency.minUs, latency.maxUs));
  line("programs  (~ marks an estimate; --json gives each value's source)");
  line(fmt::format("  {:>7}  {:<22} {:>6} {:>7} {:>10} {:>13} {:>9} {:>10} {:>14}", "program", "kernel", "vEUs",
                   "threads", "kernel_us", "rtask_span_us", "sm_eff_%", "warp_act_%", "sm_act_cycles"));
  for (const profiler::ProgramProfile& p : res.programs)
    line(fmt::format("  {:>7}  {:<22} {:>6} {:>7} {:>10} {:>13.2f} {:>9} {:>10} {:>14}", p.program, p.kernel,
                     p.gridBlocks, p.blockThreads,
                     p.kernelTime.samples > 0 ? fmt::format("{:.2f}", p.kernelTime.medianUs) : "-", p.rtaskSpanUs,
                     metricText(p.smEfficiencyPct, 1), metricText(p.warpActivityPct, 1),
                     metricText(p.smCyclesActive, 0)));
  const std::vector<KernelRow> rows = kernelRows(r);
  const size_t shown = maxRows > 0 ? std::min<size_t>(rows.size(), static_cast<size_t>(maxRows)) : rows.size();
  line(fmt::format("rkernels  {} measured: per-rTask median and the analytic model's time{}", rows.size(),
                   shown < rows.size() ? fmt::format(" (the {} with the most rTask time)", shown) : ""));
  line(fmt::format("  {:<28} {:<18} {:>7} {:>7} {:>8} {:>12} {:>12}", "rkernel", "op", "vEUs/SM", "rTasks", "samples",
                   "measured_us", "analytic_us"));
  for (size_t i = 0; i < shown; ++i) {
    const sim::ProfileEntry& e = rows[i].entry;
    line(fmt::format("  {:<28} {:<18} {:>7} {:>7} {:>8} {:>12.3f} {:>12.3f}", e.kernelName, e.opType, e.veusPerSM,
                     e.numRTasks, e.taskTime.samples, e.taskTime.medianUs, rows[i].analyticUs));
  }
  line(fmt::format("database  {}: {} entries for {} ({} measured in this run)", r.dbFile, r.db.size(), r.db.device(),
                   res.db.size()));
  line(fmt::format("predicted {:.1f} us with the analytic model, {:.1f} us with the profile database (measured "
                   "median {:.1f} us)",
                   r.predicted.analyticUs, r.predicted.profiledUs, latency.medianUs));
  return out;
}

}  // namespace rammer::cli

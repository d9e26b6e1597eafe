#include "profiler/run_metrics.h"

#include <functional>

namespace rammer::profiler {

namespace {

// The total of one metric over the launches: weighted mean (or sum), all
// measured or not, and the launches' common source.
MetricValue total(const std::vector<LaunchMetrics>& launches, const std::function<const MetricValue&(const LaunchMetrics&)>& pick,
                  bool sum) {
  MetricValue t;
  t.measured = !launches.empty();
  double weighted = 0, weight = 0;
  std::vector<std::string> sources;
  for (const LaunchMetrics& l : launches) {
    const MetricValue& m = pick(l);
    weighted += (sum ? 1.0 : l.weightUs) * m.value;
    weight += l.weightUs;
    t.measured = t.measured && m.measured;
    bool seen = false;
    for (const std::string& s : sources) seen = seen || s == m.source;
    if (!seen) sources.push_back(m.source);
  }
  if (sum) {
    t.value = weighted;
  } else if (weight > 0) {
    t.value = weighted / weight;
  }
  if (sources.size() == 1) {
    t.source = sources.front();
  } else if (!sources.empty()) {
    t.source = "mixed:";
    for (size_t i = 0; i < sources.size(); ++i) t.source += (i ? "; " : " ") + sources[i];
  }
  return t;
}

void addTotals(RunMetrics& m) {
  const auto& p = m.programs;
  for (const LaunchMetrics& l : p) m.totalWeightUs += l.weightUs;
  m.smEfficiencyPct = total(p, [](const LaunchMetrics& l) -> const MetricValue& { return l.smEfficiencyPct; }, false);
  m.warpActivityPct = total(p, [](const LaunchMetrics& l) -> const MetricValue& { return l.warpActivityPct; }, false);
  m.smCyclesActive = total(p, [](const LaunchMetrics& l) -> const MetricValue& { return l.smCyclesActive; }, true);
}

}  // namespace

RunMetrics summarizeProfile(const ProfileResult& profile) {
  RunMetrics m;
  m.timestampsNote = profile.timestampsNote;
  m.countersNote = profile.countersNote;
  for (const ProgramProfile& p : profile.programs) {
    LaunchMetrics l;
    l.program = p.program;
    l.kernel = p.kernel;
    l.weightUs = p.kernelTime.samples > 0 ? p.kernelTime.medianUs : p.rtaskSpanUs;
    l.smEfficiencyPct = p.smEfficiencyPct;
    l.warpActivityPct = p.warpActivityPct;
    l.smCyclesActive = p.smCyclesActive;
    m.programs.push_back(std::move(l));
  }
  addTotals(m);
  return m;
}

RunMetrics unavailableRunMetrics(const schedule::Plan& plan, const std::string& reason) {
  RunMetrics m;
  m.unavailable = reason.empty() ? std::string("no reason given") : reason;
  const MetricValue none{0, false, "unavailable: " + m.unavailable};
  m.timestampsNote = none.source;
  m.countersNote = none.source;
  for (size_t i = 0; i < plan.programs.size(); ++i) {
    LaunchMetrics l;
    l.program = static_cast<int32_t>(i);
    l.smEfficiencyPct = l.warpActivityPct = l.smCyclesActive = none;
    m.programs.push_back(std::move(l));
  }
  m.smEfficiencyPct = m.warpActivityPct = m.smCyclesActive = none;
  return m;
}

ir::Result<RunMetrics> measureRunMetrics(const schedule::Plan& plan, const ir::Graph& graph,
                                         const std::vector<ir::Tensor>& inputs, const ProfileOptions& options) {
  schedule::Plan copy = plan;
  auto profile = profilePlan(copy, graph, inputs, options);
  if (!profile) return profile.errors();
  return summarizeProfile(*profile);
}

}  // namespace rammer::profiler

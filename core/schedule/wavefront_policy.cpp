#include "core/schedule/wavefront_policy.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/schedule/plan_builder.h"

namespace rammer::schedule {

namespace {

// Where an operator's rTasks finished in the program being built.
struct OpTiming {
  double finish = 0;
  int onlyVEU = -1;  // the one vEU all its rTasks ran on; -1 when several
};

// An rProgram under construction with the policy's time estimates.
struct ProgramState {
  ProgramDraft draft;
  std::vector<double> free;  // when each vEU finishes its last rTask
  std::map<int32_t, OpTiming> timing;
  double makespan = 0;
  int highestVEU = -1;  // highest vEU used
  bool empty() const { return draft.ops.empty(); }
};

// When an operator may start on each vEU. A producer in this program is
// complete at its finish time, plus a barrier round trip unless it ran
// entirely on the consumer's vEU. Producers are grouped by the one vEU they
// ran on, so that each rTask's question costs O(1) and the search over
// producers' vEUs O(distinct vEUs), not O(producers): a Concat of 10,000
// branches asked it 10,000 times per rTask.
class Readiness {
 public:
  Readiness(const PlanBuilder& b, const ProgramState& st, int32_t op, double barrier) : barrier_(barrier) {
    for (int32_t p : b.dag().ops[static_cast<size_t>(op)].producers) {
      auto it = st.timing.find(p);
      if (it == st.timing.end()) continue;  // earlier program: done at launch
      const OpTiming& t = it->second;
      if (t.onlyVEU < 0) {
        spread_ = std::max(spread_, t.finish);
        continue;
      }
      auto [g, fresh] = local_.try_emplace(t.onlyVEU, t.finish);
      if (!fresh) g->second = std::max(g->second, t.finish);
    }
    for (const auto& [v, finish] : local_) {
      if (finish > top_[0].second) {
        top_[1] = top_[0];
        top_[0] = {v, finish};
      } else if (finish > top_[1].second) {
        top_[1] = {v, finish};
      }
    }
  }
  // Ready on any vEU: every producer behind a barrier.
  double anywhere() const { return std::max({0.0, spread_ + barrier_, top_[0].second + barrier_}); }
  // Ready on vEU `v`: producers that ran only there need no barrier.
  double on(int v) const {
    const double others = top_[0].first == v ? top_[1].second : top_[0].second;
    double r = std::max({0.0, spread_ + barrier_, others + barrier_});
    if (auto it = local_.find(v); it != local_.end()) r = std::max(r, it->second);
    return r;
  }
  // vEU -> latest finish of the producers that ran only there.
  const std::map<int, double>& local() const { return local_; }

 private:
  static constexpr double kNone = -std::numeric_limits<double>::infinity();
  double barrier_;
  double spread_ = kNone;  // latest finish of the producers spread over several vEUs
  std::map<int, double> local_;
  std::pair<int, double> top_[2] = {{-1, kNone}, {-1, kNone}};  // the two latest entries of local_
};

std::string names(const PlanBuilder& b, const std::vector<int32_t>& ops) {
  std::string s;
  for (int32_t op : ops) s += (s.empty() ? "" : ", ") + b.label(op);
  return s;
}

// Rammer's ScheduleWave: for every rTask, Wait on its producers' rTasks and
// Append it to the vEU that can start it earliest (SelectvEU).
ir::Result<ProgramState> scheduleWave(const PlanBuilder& b, ProgramState st, const std::vector<int32_t>& wave,
                                      const VDevice& layout) {
  const double barrier = b.device().barrierLatencyUs;
  st.draft.layout = layout;
  st.free.resize(static_cast<size_t>(layout.numVEUs), 0.0);
  std::set<std::pair<double, int>> byFree;
  for (size_t v = 0; v < st.free.size(); ++v) byFree.emplace(st.free[v], static_cast<int>(v));
  std::map<int32_t, OpTiming> added;
  for (int32_t op : wave) {
    const Readiness ready(b, st, op, barrier);
    const double base = ready.anywhere();
    const double t = b.taskTime(b.kernel(op), layout.veusPerSM);
    OpTiming& mine = added[op];
    bool first = true;
    for (int64_t r = 0; r < b.numRTasks(op); ++r) {
      const RTask task{op, r};
      auto pinned = b.pinnedVEU(task, layout.numVEUs);
      if (!pinned) return pinned.errors();
      int v = *pinned;
      double start = 0;
      if (v >= 0) {
        start = std::max(st.free[static_cast<size_t>(v)], ready.on(v));
      } else {
        // The earliest-free vEU, or a vEU that already holds a producer.
        v = byFree.begin()->second;
        start = std::max(byFree.begin()->first, base);
        for (const auto& [u, finish] : ready.local()) {
          const double s = std::max(st.free[static_cast<size_t>(u)], ready.on(u));
          if (s < start || (s == start && u < v)) start = s, v = u;
        }
      }
      byFree.erase({st.free[static_cast<size_t>(v)], v});
      st.free[static_cast<size_t>(v)] = start + t;
      byFree.emplace(start + t, v);
      st.makespan = std::max(st.makespan, start + t);
      st.highestVEU = std::max(st.highestVEU, v);
      mine.finish = std::max(mine.finish, start + t);
      mine.onlyVEU = first || mine.onlyVEU == v ? v : -1;
      first = false;
      st.draft.placements.emplace_back(task, v);
    }
    st.draft.ops.push_back(op);
  }
  for (auto& [op, timing] : added) st.timing[op] = timing;
  return st;
}

// SelectRKernels: the fastest rKernel of each operator, unless the wave's
// rTasks with them oversubscribe the vEUs; then the most efficient ones.
void selectKernels(PlanBuilder& b, size_t w, const std::vector<int32_t>& wave) {
  int64_t tasks = 0;
  std::vector<KernelUse> fastestUses;
  for (int32_t op : wave) {
    const int pinned = b.pinnedKernel(op);
    const auto& k = b.candidates(op)[pinned >= 0 ? static_cast<size_t>(pinned) : b.fastest(op)];
    tasks += k.numRTasks;
    fastestUses.push_back(KernelUse{b.label(op), &k});
  }
  auto layout = makeVDevice(b.device(), fastestUses);
  const int veus = layout ? layout->numVEUs : 0;
  const bool efficient = tasks > veus;
  b.decide("wave " + std::to_string(w) + " (" + names(b, wave) + "): " + std::to_string(tasks) +
           " rTasks with the fastest rKernels " + (efficient ? "> " : "<= ") + std::to_string(veus) + " vEUs -> " +
           (efficient ? "most efficient rKernels" : "fastest rKernels"));
  for (int32_t op : wave) {
    if (const int pinned = b.pinnedKernel(op); pinned >= 0) {
      b.choose(op, static_cast<size_t>(pinned), "pinned", "schedule edit");
      continue;
    }
    const auto& cs = b.candidates(op);
    std::string why;
    for (size_t i = 0; i < cs.size(); ++i) {
      const KernelEstimate e = b.estimate(cs[i]);
      why += (i ? ", " : "") + cs[i].name + " " + std::to_string(cs[i].numRTasks) + " rTasks " + formatUs(e.opUs) +
             " / " + formatUs(e.smUs) + " SM-time";
    }
    if (efficient) b.choose(op, b.mostEfficient(op), "most efficient", why);
    else b.choose(op, b.fastest(op), "fastest", why);
  }
}

}  // namespace

ir::Result<Plan> WavefrontPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                           const Constraints& constraints) const {
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, options());
  if (!started) return started.errors();
  PlanBuilder& b = *started;
  const double launch = device.launchOverheadUs;

  std::vector<ProgramDraft> done;
  ProgramState cur;
  const auto waves = b.dag().waves();
  for (size_t w = 0; w < waves.size(); ++w) {
    if (b.cancelled()) return PlanBuilder::cancelledError();
    b.beginStep("wave " + std::to_string(w), waves[w]);
    selectKernels(b, w, waves[w]);
    // A cut_before edit splits the wave: its marked operators start a program.
    std::vector<int32_t> keep, cut;
    for (int32_t op : waves[w]) (b.cutBefore(op) ? cut : keep).push_back(op);
    for (const auto* part : {&keep, &cut}) {
      if (part->empty()) continue;
      const std::string what = "wave " + std::to_string(w) + " (" + names(b, *part) + ")";
      auto layout2 = b.layout(*part);
      if (!layout2) return layout2.errors();
      auto p2 = scheduleWave(b, ProgramState{}, *part, *layout2);
      if (!p2) return p2.errors();
      p2->draft.cutReason = what + " starts the first program";
      if (cur.empty()) {
        b.decide(what + ": first program; " + layout2->summary);
        cur = std::move(*p2);
        continue;
      }
      const bool mustMerge = std::any_of(part->begin(), part->end(), [&](int32_t op) { return b.noCutBefore(op); });
      if (part == &cut) {
        p2->draft.cutReason = "cut_before '" + b.label(cut.front()) + "' (schedule edit)";
        b.decide(what + ": new program (" + p2->draft.cutReason + ")");
        done.push_back(std::move(cur.draft));
        cur = std::move(*p2);
        continue;
      }
      // Appending to the current program: its vEUs are sized for all its rKernels.
      std::vector<int32_t> all = cur.draft.ops;
      all.insert(all.end(), part->begin(), part->end());
      auto layout1 = b.layout(all);
      std::string infeasible;
      if (!layout1) infeasible = layout1.errorText();
      else if (layout1->numVEUs <= cur.highestVEU)
        infeasible = "its rKernels shrink the program to " + std::to_string(layout1->numVEUs) + " vEUs but vEU " +
                     std::to_string(cur.highestVEU) + " is in use";
      ir::Result<ProgramState> p1 = ir::makeError(infeasible);
      if (infeasible.empty()) {
        p1 = scheduleWave(b, cur, *part, *layout1);  // a copy: the current program stays as it is
        if (!p1) infeasible = p1.errorText();
      }
      if (mustMerge) {
        if (!infeasible.empty())
          return ir::makeError("merge_before cannot be honoured for " + what + ": " + infeasible);
        b.decide(what + ": appended to program " + std::to_string(done.size()) + " (merge_before edit)");
        cur = std::move(*p1);
        continue;
      }
      const double t1 = infeasible.empty() ? p1->makespan : 0;
      const double cutTime = cur.makespan + launch + p2->makespan;
      if (!infeasible.empty() || t1 > cutTime) {
        const std::string reason =
            infeasible.empty()
                ? "appending would finish at " + formatUs(t1) + " > " + formatUs(cur.makespan) + " + launch " +
                      formatUs(launch) + " + " + formatUs(p2->makespan) + " as a new program"
                : "cannot append: " + infeasible;
        p2->draft.cutReason = what + ": " + reason;
        b.decide(what + ": new program, " + reason + "; " + layout2->summary);
        done.push_back(std::move(cur.draft));
        cur = std::move(*p2);
      } else {
        b.decide(what + ": appended to program " + std::to_string(done.size()) + ", finishing at " + formatUs(t1) +
                 " <= " + formatUs(cur.makespan) + " + launch " + formatUs(launch) + " + " + formatUs(p2->makespan));
        cur = std::move(*p1);
      }
    }
  }
  if (!cur.empty()) done.push_back(std::move(cur.draft));
  return std::move(b).finish(std::move(done));
}

}  // namespace rammer::schedule

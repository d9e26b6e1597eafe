#include "core/schedule/wavefront_policy.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
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

// SelectRKernels at one vDevice shape (vEUs per SM; 0: as many as the
// rKernels allow): the fastest rKernel of each operator, unless the wave's
// rTasks with them oversubscribe the vEUs; then the most efficient ones
// (`fastestOnly`: the fastest regardless). Only rKernels whose registers
// fit the shape's budget are considered.
struct WaveChoice {
  int shape = 0;
  std::vector<size_t> kernels;  // per operator of the wave, into its candidates
  bool oversubscribed = false;  // the fastest rKernels' rTasks outnumber the vEUs
  bool efficient = false;       // the most efficient rKernels were taken
  int64_t tasks = 0;
  int veus = 0;
  std::string infeasible;  // why the shape cannot run the wave; empty when it can
  std::string weighed;     // both sets' finish times, where both were scheduled
};

WaveChoice pickKernels(const PlanBuilder& b, const std::vector<int32_t>& wave, int shape, bool fastestOnly = false) {
  WaveChoice c;
  c.shape = shape;
  std::vector<KernelUse> fastestUses;
  for (int32_t op : wave) {
    const int pinned = b.pinnedKernel(op);
    const size_t f = pinned >= 0 ? static_cast<size_t>(pinned) : b.fastest(op, shape);
    const auto& k = b.candidates(op)[f];
    c.tasks += k.numRTasks;
    fastestUses.push_back(KernelUse{b.label(op), &k});
  }
  auto layout = makeVDevice(b.device(), fastestUses, shape);
  if (!layout) {
    c.infeasible = layout.errorText();
    return c;
  }
  c.veus = layout->numVEUs;
  c.oversubscribed = c.tasks > c.veus;
  c.efficient = c.oversubscribed && !fastestOnly;
  for (int32_t op : wave) {
    const int pinned = b.pinnedKernel(op);
    c.kernels.push_back(pinned >= 0 ? static_cast<size_t>(pinned)
                                    : (c.efficient ? b.mostEfficient(op, shape) : b.fastest(op, shape)));
  }
  return c;
}

// Commits a wave's rKernels with their decision lines.
void commitKernels(PlanBuilder& b, size_t w, const std::vector<int32_t>& wave, const WaveChoice& c) {
  b.decide("wave " + std::to_string(w) + " (" + names(b, wave) + "): " + std::to_string(c.tasks) +
           " rTasks with the fastest rKernels " + (c.oversubscribed ? "> " : "<= ") + std::to_string(c.veus) +
           " vEUs -> " + (c.efficient ? "most efficient rKernels" : "fastest rKernels") +
           (c.weighed.empty() ? "" : " (" + c.weighed + ")"));
  for (size_t i = 0; i < wave.size(); ++i) {
    const int32_t op = wave[i];
    if (b.pinnedKernel(op) >= 0) {
      b.choose(op, c.kernels[i], "pinned", "schedule edit");
      continue;
    }
    const auto& cs = b.candidates(op);
    std::string why;
    for (size_t j = 0; j < cs.size(); ++j) {
      const KernelEstimate e = b.estimate(cs[j], c.shape);
      why += (j ? ", " : "") + cs[j].name + " " + std::to_string(cs[j].numRTasks) + " rTasks " +
             (e.fits ? formatUs(e.opUs) + " / " + formatUs(e.smUs) + " SM-time" : "does not fit the shape");
    }
    b.choose(op, c.kernels[i], c.efficient ? "most efficient" : "fastest", why);
  }
}

void tryKernels(PlanBuilder& b, const std::vector<int32_t>& wave, const WaveChoice& c) {
  for (size_t i = 0; i < wave.size(); ++i) b.tryKernel(wave[i], c.kernels[i]);
}

// The vDevice shapes (vEUs per SM) a wave may run at: the one a schedule
// edit pins, else those its candidates' register budgets give (a budget of
// 128 registers at 256 threads: 2 per SM; 64: 4).
std::vector<int> waveShapes(const PlanBuilder& b, const std::vector<int32_t>& wave) {
  for (int32_t op : wave)
    if (const int pinned = b.pinnedShape(op); pinned > 0) return {pinned};
  std::set<int, std::greater<>> shapes;
  for (int32_t op : wave)
    for (const kernels::RKernel& k : b.candidates(op))
      if (auto l = makeVDevice(b.device(), {KernelUse{"", &k}})) shapes.insert(l->veusPerSM);
  return {shapes.begin(), shapes.end()};
}

// The pinned shape of any operator of `ops`; 0 when none is pinned.
int pinnedShapeOf(const PlanBuilder& b, const std::vector<int32_t>& ops) {
  for (int32_t op : ops)
    if (const int s = b.pinnedShape(op); s > 0) return s;
  return 0;
}

// The wave scheduled after `from` (an empty state: as a new program) at one
// shape, its vEUs sized for the program's rKernels and the wave's. The
// paper's rule picks the most efficient rKernels when the fastest ones'
// rTasks oversubscribe the vEUs; both sets are scheduled then and the one
// that finishes first is kept: a few long rTasks of an efficient rKernel
// can leave most vEUs idle for longer than more, shorter rTasks take.
struct Scheduled {
  WaveChoice choice;
  ir::Result<ProgramState> state = ir::makeError("not scheduled");
};

ir::Result<Scheduled> scheduleAtShape(PlanBuilder& b, const ProgramState& from, const std::vector<int32_t>& wave,
                                      int shape) {
  auto attempt = [&](WaveChoice c) -> ir::Result<Scheduled> {
    Scheduled s{std::move(c)};
    if (!s.choice.infeasible.empty()) {
      s.state = ir::makeError(s.choice.infeasible);
      return s;
    }
    tryKernels(b, wave, s.choice);
    std::vector<int32_t> all = from.draft.ops;
    all.insert(all.end(), wave.begin(), wave.end());
    auto layout = b.layout(all, shape);
    if (!layout) s.state = ir::makeError(layout.errorText());
    else if (layout->numVEUs <= from.highestVEU)
      s.state = ir::makeError("its rKernels shrink the program to " + std::to_string(layout->numVEUs) +
                              " vEUs but vEU " + std::to_string(from.highestVEU) + " is in use");
    else s.state = scheduleWave(b, from, wave, *layout);  // a copy: `from` stays as it is
    return s;
  };
  auto rule = attempt(pickKernels(b, wave, shape));
  if (!rule) return rule.errors();
  if (!rule->choice.efficient || !rule->state) return rule;
  auto fastest = attempt(pickKernels(b, wave, shape, true));
  if (!fastest) return fastest.errors();
  if (!fastest->state || fastest->choice.kernels == rule->choice.kernels) {
    tryKernels(b, wave, rule->choice);
    return rule;
  }
  const double efficientUs = rule->state->makespan, fastestUs = fastest->state->makespan;
  const std::string weighed = "the most efficient finish the wave at " + formatUs(efficientUs) + ", the fastest at " +
                              formatUs(fastestUs);
  Scheduled& kept = fastestUs < efficientUs ? *fastest : *rule;
  kept.choice.weighed = weighed;
  tryKernels(b, wave, kept.choice);
  return std::move(kept);
}

// A wave as the start of a new program, at its best shape: each shape's
// rKernels scheduled, the shortest makespan kept (more vEUs on a tie).
struct NewProgram {
  WaveChoice choice;
  ProgramState state;
  std::string summary;  // the shapes weighed, for the decision line
};

ir::Result<NewProgram> bestNewProgram(PlanBuilder& b, const std::vector<int32_t>& wave) {
  std::optional<NewProgram> best;
  std::string weighed, why;
  for (int shape : waveShapes(b, wave)) {
    auto s = scheduleAtShape(b, ProgramState{}, wave, shape);
    if (!s) return s.errors();
    if (!s->state) {
      weighed += (weighed.empty() ? "" : "; ") + std::to_string(shape) + "/SM cannot run it";
      why = s->state.errorText();
      continue;
    }
    weighed += (weighed.empty() ? "" : "; ") + std::to_string(shape) + "/SM " + formatUs(s->state->makespan);
    if (!best || s->state->makespan < best->state.makespan)
      best = NewProgram{std::move(s->choice), std::move(*s->state), {}};
  }
  if (!best) return ir::makeError("no vDevice shape runs " + names(b, wave) + ": " + why);
  best->summary = "vDevice shapes weighed: " + weighed;
  return std::move(*best);
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
    // A cut_before edit splits the wave: its marked operators start a program.
    std::vector<int32_t> keep, cut;
    for (int32_t op : waves[w]) (b.cutBefore(op) ? cut : keep).push_back(op);
    for (const auto* part : {&keep, &cut}) {
      if (part->empty()) continue;
      const std::string what = "wave " + std::to_string(w) + " (" + names(b, *part) + ")";
      // As a new program, at its best vDevice shape.
      auto fresh = bestNewProgram(b, *part);
      if (!fresh) return fresh.errors();
      ProgramState& p2 = fresh->state;
      p2.draft.cutReason = what + " starts the first program";
      auto startNew = [&](const std::string& decision) {
        commitKernels(b, w, *part, fresh->choice);
        b.decide(decision + "; " + p2.draft.layout.summary + " (" + fresh->summary + ")");
        if (!cur.empty()) done.push_back(std::move(cur.draft));
        cur = std::move(p2);
      };
      if (cur.empty()) {
        startNew(what + ": first program");
        continue;
      }
      const bool mustMerge = std::any_of(part->begin(), part->end(), [&](int32_t op) { return b.noCutBefore(op); });
      if (part == &cut) {
        p2.draft.cutReason = "cut_before '" + b.label(cut.front()) + "' (schedule edit)";
        startNew(what + ": new program (" + p2.draft.cutReason + ")");
        continue;
      }
      // Appended to the current program: at its shape, its vEUs sized for all its rKernels.
      const int shape = cur.draft.layout.veusPerSM;
      std::string infeasible;
      const int pinned = pinnedShapeOf(b, *part);
      WaveChoice append;
      ir::Result<ProgramState> p1 = ir::makeError("not scheduled");
      if (pinned > 0 && pinned != shape) {
        infeasible = "its vDevice shape is pinned to " + std::to_string(pinned) + " vEUs per SM, the program's is " +
                     std::to_string(shape);
      } else {
        auto s = scheduleAtShape(b, cur, *part, shape);
        if (!s) return s.errors();
        append = std::move(s->choice);
        p1 = std::move(s->state);
        if (!p1) infeasible = p1.errorText();
      }
      if (mustMerge) {
        if (!infeasible.empty())
          return ir::makeError("merge_before cannot be honoured for " + what + ": " + infeasible);
        commitKernels(b, w, *part, append);
        b.decide(what + ": appended to program " + std::to_string(done.size()) + " (merge_before edit)");
        cur = std::move(*p1);
        continue;
      }
      const double t1 = infeasible.empty() ? p1->makespan : 0;
      const double cutTime = cur.makespan + launch + p2.makespan;
      if (!infeasible.empty() || t1 > cutTime) {
        const std::string reason =
            infeasible.empty()
                ? "appending would finish at " + formatUs(t1) + " > " + formatUs(cur.makespan) + " + launch " +
                      formatUs(launch) + " + " + formatUs(p2.makespan) + " as a new program"
                : "cannot append: " + infeasible;
        p2.draft.cutReason = what + ": " + reason;
        startNew(what + ": new program, " + reason);
      } else {
        commitKernels(b, w, *part, append);
        b.decide(what + ": appended to program " + std::to_string(done.size()) + ", finishing at " + formatUs(t1) +
                 " <= " + formatUs(cur.makespan) + " + launch " + formatUs(launch) + " + " + formatUs(p2.makespan));
        cur = std::move(*p1);
      }
    }
  }
  if (!cur.empty()) done.push_back(std::move(cur.draft));
  return std::move(b).finish(std::move(done));
}

}  // namespace rammer::schedule

#pragma once
// Oracles for the barrier-deletion tests, written apart from the validator
// (core/schedule/validator, ordering_clocks, barrier_removal): they share no
// code with it and take other routes to the same answer.
//
//  dependencyBroken   walks a whole program in an order that respects its
//                     happens-before edges and says whether some rTask may
//                     start before a producer rTask finishes.
//  DeletionOracle     the same question for the program without one barrier,
//                     asked for every barrier: it keeps what every vEU knows
//                     after each barrier and lowers those values by chaotic
//                     iteration from where the barrier was.
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <variant>
#include <vector>

#include "core/schedule/plan.h"

namespace rammer::oracle {

using schedule::Barrier;
using schedule::Exec;
using schedule::Instr;
using schedule::Plan;
using schedule::RProgram;
using schedule::Slot;
using schedule::RTask;

// Where the rTasks of `prod` that `task` reads ran in `prog`: per vEU the
// last of them. All of prod's rTasks (`lastOn`), unless the plan's graph
// links them directly and both rKernels say which ranges their rTasks read
// and write (GraphTurbo's instances): then those that overlap what it reads,
// kept in `scratch`. nullptr: none (an earlier program's; the launch orders it).
inline const std::map<int32_t, int32_t>* producerOrders(const Plan& plan, const RProgram& prog, RTask task,
                                                        int32_t prod,
                                                        const std::map<int32_t, std::map<int32_t, int32_t>>& lastOn,
                                                        std::map<int32_t, int32_t>& scratch) {
  const auto all = lastOn.find(prod);
  if (all == lastOn.end()) return nullptr;
  const auto& c = plan.ops[static_cast<size_t>(task.op)];
  const auto& p = plan.ops[static_cast<size_t>(prod)];
  if (!plan.graph || !c.kernel.reads || !p.kernel.writes) return &all->second;
  const ir::Graph& g = *plan.graph;
  const ir::ValueId made = g.node(p.node).output(0);
  std::vector<kernels::TileSpan> reads;
  for (size_t s = 0; s < g.node(c.node).inputs.size(); ++s) {
    const ir::ValueId v = g.node(c.node).inputs[s];
    if (v == ir::kNone || g.value(v).producer == ir::kNone) continue;
    if (v != made) {
      // Read through views of prod: all of it.
      ir::NodeId n = g.value(v).producer;
      while (n != ir::kNone && n != p.node) {
        bool view = false;
        for (const auto& op : plan.ops) view = view || (op.node == n && op.isView);
        if (!view || g.node(n).inputs.empty() || g.node(n).inputs[0] == ir::kNone) break;
        n = g.value(g.node(n).inputs[0]).producer;
      }
      if (n == p.node) return &all->second;
      continue;
    }
    const auto r = c.kernel.reads(task.rtask, s);
    if (!r) return &all->second;
    reads.push_back(*r);
  }
  if (reads.empty()) return &all->second;
  std::map<int32_t, int32_t>& out = scratch;
  out.clear();
  for (int64_t t = 0; t < p.kernel.numRTasks; ++t) {
    const auto w = p.kernel.writes(t);
    if (!w) return &all->second;
    bool overlaps = false;
    for (const auto& r : reads) {
      if (r.dim != w->dim) return &all->second;
      overlaps = overlaps || (r.lo < w->hi && w->lo < r.hi);
    }
    if (!overlaps) continue;
    const Slot at = prog.slotOf(RTask{prod, t});
    if (at.veu < 0) continue;
    int32_t& last = out.try_emplace(at.veu, -1).first->second;
    last = std::max(last, at.order);
  }
  return &out;
}

// Per producer operator: the last order of its rTasks on each vEU.
inline std::map<int32_t, std::map<int32_t, int32_t>> lastOrders(const RProgram& prog) {
  std::map<int32_t, std::map<int32_t, int32_t>> lastOn;
  for (int v = 0; v < prog.numVEUs(); ++v)
    for (size_t o = 0; o < prog.stream(v).size(); ++o)
      if (const auto* e = std::get_if<Exec>(&prog.stream(v)[o])) {
        int32_t& last = lastOn[e->task.op][v];
        last = std::max(last, static_cast<int32_t>(o));
      }
  return lastOn;
}

// Runs every vEU's stream in an order that respects the happens-before
// edges (program order, barrier -> waited slot): visit(v, o) is called as
// instruction o of vEU v completes (for a barrier: once all it waits for
// has). Returns false when some vEU waits forever; stops early, returning
// true, when visit returns false.
template <class Visit>
bool walkHappensBefore(const RProgram& prog, Visit visit) {
  const size_t numVEUs = static_cast<size_t>(prog.numVEUs());
  std::vector<size_t> next(numVEUs, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t v = 0; v < numVEUs; ++v) {
      const auto& stream = prog.stream(static_cast<int>(v));
      for (; next[v] < stream.size(); ++next[v], progress = true) {
        if (const auto* b = std::get_if<Barrier>(&stream[next[v]])) {
          bool ready = true;
          for (const Slot& w : b->waits) ready = ready && w.veu >= 0 && static_cast<size_t>(w.veu) < numVEUs &&
                                                 next[static_cast<size_t>(w.veu)] > static_cast<size_t>(w.order);
          if (!ready) break;
        }
        if (!visit(v, next[v])) return true;
      }
    }
  }
  for (size_t v = 0; v < numVEUs; ++v)
    if (next[v] < prog.stream(static_cast<int>(v)).size()) return false;
  return true;
}

// Carries per vEU the latest order of every vEU known complete, snapshots
// it at each waited slot, and says whether some rTask may start before a
// producer rTask finishes: its knowledge must cover the last slot its
// producer has on each vEU.
inline bool dependencyBroken(const Plan& plan, size_t program) {
  const RProgram& prog = plan.programs[program].program;
  const size_t numVEUs = static_cast<size_t>(prog.numVEUs());
  // Per vEU and order: the waited slot's knowledge once it completes (an
  // index into `snapshots`), -1 for a slot nothing waits on.
  std::vector<std::vector<int32_t>> snapshotOf(numVEUs);
  for (size_t v = 0; v < numVEUs; ++v) snapshotOf[v].assign(prog.stream(static_cast<int>(v)).size(), -1);
  std::vector<std::vector<int32_t>> snapshots;
  for (size_t v = 0; v < numVEUs; ++v)
    for (const Instr& in : prog.stream(static_cast<int>(v)))
      if (const auto* b = std::get_if<Barrier>(&in))
        for (const Slot& w : b->waits) {
          // A slot outside the program is never ready: walkHappensBefore reports the wait.
          if (w.veu < 0 || static_cast<size_t>(w.veu) >= numVEUs || w.order < 0 ||
              static_cast<size_t>(w.order) >= snapshotOf[static_cast<size_t>(w.veu)].size())
            continue;
          int32_t& id = snapshotOf[static_cast<size_t>(w.veu)][static_cast<size_t>(w.order)];
          if (id < 0) {
            id = static_cast<int32_t>(snapshots.size());
            snapshots.emplace_back();
          }
        }
  const auto lastOn = lastOrders(prog);

  std::vector<std::vector<int32_t>> know(numVEUs, std::vector<int32_t>(numVEUs, -1));
  std::map<int32_t, int32_t> scratch;
  bool broken = false;
  const bool finished = walkHappensBefore(prog, [&](size_t v, size_t o) {
    const Instr& in = prog.stream(static_cast<int>(v))[o];
    std::vector<int32_t>& mine = know[v];
    if (const auto* b = std::get_if<Barrier>(&in)) {
      for (const Slot& w : b->waits) {
        const auto& seen = snapshots[static_cast<size_t>(
            snapshotOf[static_cast<size_t>(w.veu)][static_cast<size_t>(w.order)])];
        for (size_t u = 0; u < numVEUs; ++u) mine[u] = std::max(mine[u], seen[u]);
      }
    } else {
      const RTask task = std::get<Exec>(in).task;
      for (int32_t prod : plan.ops[static_cast<size_t>(task.op)].producers) {
        const auto* orders = producerOrders(plan, prog, task, prod, lastOn, scratch);
        if (!orders) continue;
        for (const auto& [u, order] : *orders)
          if (static_cast<size_t>(u) == v ? order >= static_cast<int32_t>(o) : mine[static_cast<size_t>(u)] < order)
            broken = true;
      }
      if (broken) return false;
    }
    mine[v] = static_cast<int32_t>(o);  // complete: what follows on v knows it
    if (const int32_t id = snapshotOf[v][o]; id >= 0) snapshots[static_cast<size_t>(id)] = mine;
    return true;
  });
  return broken || !finished;  // !finished: a wait that never ends
}

// For one program of a plan that dependencyBroken finds sound: whether
// deleting a given barrier breaks a dependency. Values only fall when a
// barrier goes, so iterating from the old ones in any order reaches the
// new ones, and a dependency that fails on the way fails at the end.
class DeletionOracle {
 public:
  DeletionOracle(const Plan& plan, size_t program)
      : plan_(plan), prog_(plan.programs[program].program), n_(static_cast<size_t>(prog_.numVEUs())),
        lastOn_(lastOrders(prog_)), barrierOrders_(n_), readers_(n_), after_(n_) {
    for (size_t v = 0; v < n_; ++v) readers_[v].resize(prog_.stream(static_cast<int>(v)).size());
    for (size_t v = 0; v < n_; ++v) {
      const auto& stream = prog_.stream(static_cast<int>(v));
      for (size_t o = 0; o < stream.size(); ++o)
        if (const auto* b = std::get_if<Barrier>(&stream[o])) {
          const Slot here{static_cast<int32_t>(v), static_cast<int32_t>(o)};
          barrierOrders_[v].push_back(here.order);
          for (const Slot& w : b->waits)
            if (w.veu >= 0 && static_cast<size_t>(w.veu) < n_ && w.order >= 0 &&
                static_cast<size_t>(w.order) < readers_[static_cast<size_t>(w.veu)].size())
              readers_[static_cast<size_t>(w.veu)][static_cast<size_t>(w.order)].push_back(here);
        }
      after_[v].resize(barrierOrders_[v].size());
    }
    // Old values: the walk of dependencyBroken, keeping what each vEU knows
    // once past each barrier (its vEU passes its barriers in order).
    std::vector<std::vector<int32_t>> know(n_, std::vector<int32_t>(n_, -1));
    std::vector<size_t> passed(n_, 0);
    const Values none;
    walkHappensBefore(prog_, [&](size_t v, size_t o) {
      if (const auto* b = std::get_if<Barrier>(&prog_.stream(static_cast<int>(v))[o])) {
        for (const Slot& w : b->waits) joinSlot(know[v], w, none);
        after_[v][passed[v]++] = know[v];
      }
      know[v][v] = static_cast<int32_t>(o);
      return true;
    });
  }

  bool brokenWithout(Slot deleted) const {
    Values lowered;
    std::deque<Slot> work{deleted};
    std::set<Slot> pending{deleted};
    while (!work.empty()) {
      const Slot z = work.front();
      work.pop_front();
      pending.erase(z);
      std::vector<int32_t> value = recompute(z, deleted, lowered);
      if (value == current(z.veu, barrierIndex(z), lowered)) continue;
      lowered[z] = value;
      if (guardedBroken(z, value)) return true;
      const int32_t end = governedEnd(z);
      auto more = [&](Slot s) {
        if (pending.insert(s).second) work.push_back(s);
      };
      if (end < static_cast<int32_t>(prog_.stream(z.veu).size())) more(Slot{z.veu, end});
      const auto& readers = readers_[static_cast<size_t>(z.veu)];
      for (int32_t o = z.order; o < end; ++o)
        for (const Slot& r : readers[static_cast<size_t>(o)]) more(r);
    }
    return false;
  }

 private:
  using Values = std::map<Slot, std::vector<int32_t>>;  // lowered values, by barrier slot

  // The barrier of u in force at order s (the latest at or before it), as
  // an index into barrierOrders_[u]; -1 when there is none.
  int32_t barrierBefore(int32_t u, int32_t s) const {
    const auto& orders = barrierOrders_[static_cast<size_t>(u)];
    return static_cast<int32_t>(std::upper_bound(orders.begin(), orders.end(), s) - orders.begin()) - 1;
  }
  int32_t barrierIndex(Slot z) const { return barrierBefore(z.veu, z.order); }
  // into |= what vEU w.veu knew when slot w completed.
  void joinSlot(std::vector<int32_t>& into, Slot w, const Values& lowered) const {
    if (const int32_t b = barrierBefore(w.veu, w.order); b >= 0) {
      const auto& seen = current(w.veu, b, lowered);
      for (size_t u = 0; u < n_; ++u) into[u] = std::max(into[u], seen[u]);
    }
    into[static_cast<size_t>(w.veu)] = std::max(into[static_cast<size_t>(w.veu)], w.order);
  }
  // What vEU u knows once past its barrier number b.
  const std::vector<int32_t>& current(int32_t u, int32_t b, const Values& lowered) const {
    if (!lowered.empty())
      if (auto it = lowered.find(Slot{u, barrierOrders_[static_cast<size_t>(u)][static_cast<size_t>(b)]});
          it != lowered.end())
        return it->second;
    return after_[static_cast<size_t>(u)][static_cast<size_t>(b)];
  }
  std::vector<int32_t> recompute(Slot z, Slot deleted, const Values& lowered) const {
    std::vector<int32_t> value(n_, -1);
    if (const int32_t b = barrierBefore(z.veu, z.order - 1); b >= 0) value = current(z.veu, b, lowered);
    value[static_cast<size_t>(z.veu)] = std::max(value[static_cast<size_t>(z.veu)], z.order - 1);
    if (z == deleted) return value;
    for (const Slot& w : std::get<Barrier>(prog_.stream(z.veu)[static_cast<size_t>(z.order)]).waits)
      joinSlot(value, w, lowered);
    return value;
  }
  int32_t governedEnd(Slot z) const {
    const auto& orders = barrierOrders_[static_cast<size_t>(z.veu)];
    auto it = std::upper_bound(orders.begin(), orders.end(), z.order);
    return it == orders.end() ? static_cast<int32_t>(prog_.stream(z.veu).size()) : *it;
  }
  // The rTasks after barrier z up to the next one, against producers on other vEUs.
  bool guardedBroken(Slot z, const std::vector<int32_t>& value) const {
    const auto& stream = prog_.stream(z.veu);
    std::map<int32_t, int32_t> scratch;
    for (int32_t o = z.order + 1; o < governedEnd(z); ++o) {
      const RTask task = std::get<Exec>(stream[static_cast<size_t>(o)]).task;
      for (int32_t prod : plan_.ops[static_cast<size_t>(task.op)].producers) {
        const auto* orders = producerOrders(plan_, prog_, task, prod, lastOn_, scratch);
        if (!orders) continue;
        for (const auto& [u, order] : *orders)
          if (u != z.veu && value[static_cast<size_t>(u)] < order) return true;
      }
    }
    return false;
  }

  const Plan& plan_;
  const RProgram& prog_;
  size_t n_;
  std::map<int32_t, std::map<int32_t, int32_t>> lastOn_;
  std::vector<std::vector<int32_t>> barrierOrders_;               // per vEU, ascending
  std::vector<std::vector<std::vector<Slot>>> readers_;           // per vEU and order: barriers waiting on it
  std::vector<std::vector<std::vector<int32_t>>> after_;          // per vEU and barrier: its knowledge once past it
};

}  // namespace rammer::oracle

#include "core/schedule/validator.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "core/schedule/operator_graph.h"
#include "core/schedule/ordering_clocks.h"
#include "core/schedule/rtask_needs.h"
#include "core/schedule/vdevice.h"

namespace rammer::schedule {

std::string problemKindName(ProblemKind k) {
  switch (k) {
    case ProblemKind::Structure: return "structure";
    case ProblemKind::Coverage: return "coverage";
    case ProblemKind::Dependency: return "dependency";
    case ProblemKind::Deadlock: return "deadlock";
    case ProblemKind::Resources: return "resources";
  }
  return "?";
}

size_t ValidationReport::count(ProblemKind k) const {
  return static_cast<size_t>(std::count_if(problems.begin(), problems.end(), [&](const PlanProblem& p) { return p.kind == k; }));
}

namespace {

PlanProblem mk(ProblemKind kind, std::string message, int program = -1, std::vector<RTask> tasks = {},
               std::vector<Slot> slots = {}, std::string node = {}) {
  PlanProblem p;
  p.kind = kind;
  p.message = std::move(message);
  p.program = program;
  p.tasks = std::move(tasks);
  p.places = std::move(slots);
  p.node = std::move(node);
  return p;
}

struct Where {
  int program = -1;
  Slot slot;
};

class Checker {
 public:
  Checker(const Plan& plan, const ir::Graph& graph, size_t cap) : plan_(plan), graph_(graph), cap_(cap) {}

  ValidationReport run() {
    resolveProducers();
    checkCoverage();
    for (size_t p = 0; p < plan_.programs.size(); ++p) {
      checkResources(static_cast<int>(p));
      if (plan_.programs[p].dynamic) checkDynamic(static_cast<int>(p));
      else checkOrdering(static_cast<int>(p));
    }
    return std::move(report_);
  }

 private:
  std::string name(RTask t) const {
    if (t.op < 0 || static_cast<size_t>(t.op) >= plan_.ops.size()) return "op#" + std::to_string(t.op) + "[" + std::to_string(t.rtask) + "]";
    return plan_.ops[static_cast<size_t>(t.op)].name + "[" + std::to_string(t.rtask) + "]";
  }
  static std::string at(Slot s) { return "vEU " + std::to_string(s.veu) + " order " + std::to_string(s.order); }
  std::string at(int program, Slot s) const { return "program " + std::to_string(program) + " " + at(s); }
  std::string opName(int32_t op) const { return plan_.ops.at(static_cast<size_t>(op)).name; }

  void add(PlanProblem p) {
    if (report_.problems.size() >= cap_) {
      ++report_.omitted;
      return;
    }
    report_.problems.push_back(std::move(p));
  }
  bool validTask(RTask t) const {
    if (t.op < 0 || static_cast<size_t>(t.op) >= plan_.ops.size()) return false;
    const PlannedOp& op = plan_.ops[static_cast<size_t>(t.op)];
    return !op.isView && t.rtask >= 0 && t.rtask < op.kernel.numRTasks;
  }

  void resolveProducers() {
    std::vector<PlanProblem> problems;
    producers_ = producersFromGraph(plan_, graph_, problems);
    needs_ = RTaskNeeds(plan_.ops, graph_);
    for (PlanProblem& pr : problems) add(std::move(pr));
  }

  void checkCoverage() {
    where_.assign(plan_.ops.size(), {});
    for (size_t i = 0; i < plan_.ops.size(); ++i)
      if (!plan_.ops[i].isView) where_[i].assign(static_cast<size_t>(std::max<int64_t>(0, plan_.ops[i].kernel.numRTasks)), {});
    for (size_t p = 0; p < plan_.programs.size(); ++p) {
      // A dynamic program runs every rTask of each of its operators, on
      // whichever vEU claims it (no slot: Slot{-1, rtask}).
      if (const auto& dp = plan_.programs[p].dynamic)
        for (const DynamicOp& d : dp->ops)
          for (int64_t r = 0; r < d.rtasks; ++r)
            if (validTask({d.op, r}))
              where_[static_cast<size_t>(d.op)][static_cast<size_t>(r)].push_back(
                  {static_cast<int>(p), Slot{-1, static_cast<int32_t>(r)}});
      const RProgram& prog = plan_.programs[p].program;
      for (int v = 0; v < prog.numVEUs(); ++v) {
        const auto& s = prog.stream(v);
        for (size_t o = 0; o < s.size(); ++o) {
          const auto* e = std::get_if<Exec>(&s[o]);
          if (!e) continue;
          const Slot slot{v, static_cast<int32_t>(o)};
          if (!validTask(e->task)) {
            add(mk(ProblemKind::Structure, name(e->task) + " at " + at(static_cast<int>(p), slot) + " is not an rTask of the plan",
                 static_cast<int>(p), {e->task}, {slot}));
            continue;
          }
          where_[static_cast<size_t>(e->task.op)][static_cast<size_t>(e->task.rtask)].push_back({static_cast<int>(p), slot});
        }
      }
    }
    lastProgram_.assign(where_.size(), -1);
    for (size_t i = 0; i < where_.size(); ++i)
      for (const auto& places : where_[i])
        for (const Where& x : places) lastProgram_[i] = std::max(lastProgram_[i], x.program);
    for (size_t i = 0; i < where_.size(); ++i) {
      std::vector<int64_t> missing;
      for (size_t r = 0; r < where_[i].size(); ++r) {
        const auto& w = where_[i][r];
        const RTask t{static_cast<int32_t>(i), static_cast<int64_t>(r)};
        if (w.empty()) missing.push_back(static_cast<int64_t>(r));
        if (w.size() > 1) {
          std::string places;
          PlanProblem pr = mk(ProblemKind::Coverage, "", w[0].program, {}, {}, plan_.ops[i].name);
          for (const Where& x : w) {
            places += (places.empty() ? "" : "; ") + at(x.program, x.slot);
            pr.tasks.push_back(t);
            pr.places.push_back(x.slot);
          }
          pr.message = name(t) + " runs " + std::to_string(w.size()) + " times: " + places;
          add(std::move(pr));
        }
      }
      if (!missing.empty()) {
        PlanProblem pr = mk(ProblemKind::Coverage, "", -1, {}, {}, plan_.ops[i].name);
        std::string list;
        for (size_t k = 0; k < missing.size(); ++k) {
          pr.tasks.push_back({static_cast<int32_t>(i), missing[k]});
          if (k < 8) list += (k ? ", " : "") + name({static_cast<int32_t>(i), missing[k]});
        }
        if (missing.size() > 8) list += " and " + std::to_string(missing.size() - 8) + " more";
        pr.message = std::to_string(missing.size()) + " of " + std::to_string(where_[i].size()) + " rTasks of '" +
                     plan_.ops[i].name + "' never run: " + list;
        add(std::move(pr));
      }
    }
  }

  void checkResources(int p) {
    const ProgramInfo& info = plan_.programs[static_cast<size_t>(p)];
    const RProgram& prog = info.program;
    const device::DeviceSpec& d = plan_.device;
    if (info.dynamic) {
      // Any vEU may run any of its operators' rTasks.
      for (int32_t op : opsOfProgram(plan_, static_cast<size_t>(p))) {
        const auto& k = plan_.ops[static_cast<size_t>(op)].kernel;
        if (k.threads() > d.maxThreadsPerBlock || k.sharedBytes + residentRegionBytes(k) > d.sharedPerBlockOptin)
          add(mk(ProblemKind::Resources,
                 "dynamic program " + std::to_string(p) + ": '" + opName(op) + "' needs " +
                     std::to_string(k.threads()) + " threads and " +
                     std::to_string(k.sharedBytes + residentRegionBytes(k)) + " B of shared memory; a block has at most " + std::to_string(d.maxThreadsPerBlock) + " and " +
                     std::to_string(d.sharedPerBlockOptin) + " B",
                 p, {}, {}, opName(op)));
      }
    }
    for (int v = 0; v < prog.numVEUs(); ++v) {
      int threads = 0;
      int64_t scratch = 0, resident = 0;
      RTask biggest, keeper;
      for (const Instr& in : prog.stream(v)) {
        const auto* e = std::get_if<Exec>(&in);
        if (!e || !validTask(e->task)) continue;
        const auto& k = plan_.ops[static_cast<size_t>(e->task.op)].kernel;
        if (k.threads() > threads) threads = k.threads(), biggest = e->task;
        scratch = std::max(scratch, k.sharedBytes);
        if (residentRegionBytes(k) > resident) resident = residentRegionBytes(k), keeper = e->task;
      }
      // A persistent cell's slice stays in the vEU's shared memory beside
      // the scratch of every other rTask there (issue #45 item 3).
      const int64_t shared = scratch + resident;
      if (threads > d.maxThreadsPerBlock)
        add(mk(ProblemKind::Resources,
             "program " + std::to_string(p) + " vEU " + std::to_string(v) + " needs " + std::to_string(threads) +
                 " threads (for " + name(biggest) + ") but a block has at most " + std::to_string(d.maxThreadsPerBlock),
             p, {biggest}, {prog.slotOf(biggest)}, opName(biggest.op)));
      if (shared > d.sharedPerBlockOptin)
        add(mk(ProblemKind::Resources,
             "program " + std::to_string(p) + " vEU " + std::to_string(v) + " needs " + std::to_string(shared) +
                 " B of shared memory" +
                 (resident ? " (" + std::to_string(resident) + " B of it the weights " + name(keeper) + " keeps resident)"
                           : std::string()) +
                 " but a block has at most " + std::to_string(d.sharedPerBlockOptin),
             p, resident ? std::vector<RTask>{keeper} : std::vector<RTask>{},
             resident ? std::vector<Slot>{prog.slotOf(keeper)} : std::vector<Slot>{},
             resident ? opName(keeper.op) : std::string()));
    }
    auto layout = vdeviceOf(plan_, static_cast<size_t>(p));
    if (!layout) {
      add(mk(ProblemKind::Resources, "program " + std::to_string(p) + ": " + layout.errorText(), p));
      return;
    }
    const int resident = layout->veusPerSM * d.sms;
    if (prog.numVEUs() > resident)
      add(mk(ProblemKind::Resources,
           "program " + std::to_string(p) + " has " + std::to_string(prog.numVEUs()) + " vEUs but only " +
               std::to_string(resident) + " (" + std::to_string(layout->veusPerSM) + " per SM x " + std::to_string(d.sms) +
               " SMs) can be resident at once: barriers could wait for vEUs that never start",
           p));
  }

  // A dynamic program's gates, consumer lists, order and queue
  // (checkDynamicProgram); a producer in a later program is an error here
  // as anywhere.
  void checkDynamic(int p) {
    for (std::string& e : checkDynamicProgram(plan_, static_cast<size_t>(p)))
      add(mk(ProblemKind::Dependency, std::move(e), p));
    for (const DynamicOp& d : plan_.programs[static_cast<size_t>(p)].dynamic->ops) {
      if (d.op < 0 || static_cast<size_t>(d.op) >= producers_.size()) continue;
      for (int32_t q : producers_[static_cast<size_t>(d.op)])
        if (q >= 0 && static_cast<size_t>(q) < lastProgram_.size() && lastProgram_[static_cast<size_t>(q)] > p)
          add(mk(ProblemKind::Dependency,
                 "'" + opName(d.op) + "' in program " + std::to_string(p) + " reads '" + opName(q) +
                     "', which runs in the later program " + std::to_string(lastProgram_[static_cast<size_t>(q)]),
                 p, {}, {}, opName(d.op)));
    }
  }

  // Dependencies are judged on the program's vector clocks (OrderingClocks).
  void checkOrdering(int p) {
    const RProgram& prog = plan_.programs[static_cast<size_t>(p)].program;
    const int V = prog.numVEUs();
    const OrderingClocks clocks(prog);
    const std::vector<size_t>& pos = clocks.progress();
    reportDeadlocks(p, prog, pos);

    const LastSlots latest = lastSlotsByOp(prog, [&](RTask t) { return validTask(t); });
    for (int v = 0; v < V; ++v) {
      const auto& s = prog.stream(v);
      const auto& barriers = clocks.barriers(v);
      size_t nextBarrier = 0;
      int32_t sid = -1;
      for (size_t o = 0; o < s.size() && o < pos[static_cast<size_t>(v)]; ++o) {
        if (nextBarrier < barriers.size() && static_cast<size_t>(barriers[nextBarrier].order) == o)
          sid = barriers[nextBarrier++].snapshot;
        const auto* e = std::get_if<Exec>(&s[o]);
        if (!e || !validTask(e->task)) continue;
        const Slot me{v, static_cast<int32_t>(o)};
        for (int32_t prod : producers_[static_cast<size_t>(e->task.op)]) {
          checkLaterProgram(p, e->task, me, prod);
          if (auto some = needs_.needed(e->task, prod)) {
            // Only the producer rTasks that write what this one reads.
            for (int64_t r : *some) {
              const Slot at = prog.slotOf(RTask{prod, r});
              if (at.veu < 0) continue;  // another program: checkLaterProgram
              const bool ok = at.veu == v ? at.order < me.order : clocks.knows(sid, at.veu, at.order);
              if (!ok) add(unorderedProducer(plan_, p, e->task, me, RTask{prod, r}, at));
            }
            continue;
          }
          auto it = latest.find(prod);
          if (it == latest.end()) continue;
          for (const LastSlot& last : it->second) {
            const int u = last.veu;
            const bool ok = u == v ? last.order < me.order : clocks.knows(sid, u, last.order);
            if (!ok) add(unorderedProducer(plan_, p, e->task, me, last.task, Slot{u, last.order}));
          }
        }
      }
    }
  }

  // A producer rTask placed in a later program than its consumer.
  void checkLaterProgram(int p, RTask consumer, Slot me, int32_t prod) {
    if (lastProgram_[static_cast<size_t>(prod)] <= p) return;
    const auto& w = where_[static_cast<size_t>(prod)];
    for (size_t r = 0; r < w.size(); ++r) {
      for (const Where& x : w[r]) {
        if (x.program <= p) continue;
        const RTask pt{prod, static_cast<int64_t>(r)};
        add(mk(ProblemKind::Dependency,
             name(consumer) + " (" + at(p, me) + ") runs before its producer " + name(pt) + " (" + at(x.program, x.slot) +
                 ", a later program)",
             p, {consumer, pt}, {me, x.slot}, opName(consumer.op)));
        return;  // one per consumer and producer op is enough
      }
    }
  }

  std::string describe(const RProgram& prog, Slot s) const {
    if (s.veu < 0 || s.veu >= prog.numVEUs() || s.order < 0 || static_cast<size_t>(s.order) >= prog.stream(s.veu).size())
      return at(s) + " (no such slot)";
    const Instr& in = prog.stream(s.veu)[static_cast<size_t>(s.order)];
    if (const auto* e = std::get_if<Exec>(&in)) return name(e->task) + " at " + at(s);
    return "the barrier at " + at(s);
  }
  // The rTask a barrier guards: the next Exec on its vEU.
  RTask guarded(const RProgram& prog, Slot s) const {
    const auto& st = prog.stream(s.veu);
    for (size_t o = static_cast<size_t>(s.order); o < st.size(); ++o)
      if (const auto* e = std::get_if<Exec>(&st[o])) return e->task;
    return {};
  }
  std::string guardName(const RProgram& prog, Slot s) const {
    const RTask t = guarded(prog, s);
    return t.op < 0 ? "the end of the stream" : name(t);
  }

  void reportDeadlocks(int p, const RProgram& prog, const std::vector<size_t>& pos) {
    const int V = prog.numVEUs();
    // Each stuck vEU sits at a barrier waiting for its first incomplete slot.
    std::vector<int> next(static_cast<size_t>(V), -1);
    std::vector<Slot> waitsFor(static_cast<size_t>(V));
    bool any = false;
    for (int v = 0; v < V; ++v) {
      const size_t i = pos[static_cast<size_t>(v)];
      if (i >= prog.stream(v).size()) continue;
      any = true;
      const auto& b = std::get<Barrier>(prog.stream(v)[i]);
      const Slot here{v, static_cast<int32_t>(i)};
      for (const Slot& w : b.waits) {
        const bool ok = w.veu >= 0 && w.veu < V && w.order >= 0 && static_cast<size_t>(w.order) < prog.stream(w.veu).size();
        if (!ok) {
          add(mk(ProblemKind::Deadlock,
               "the barrier at " + at(p, here) + " before " + guardName(prog, here) + " waits for " + at(w) +
                   ", which does not exist: the vEU waits forever",
               p, {guarded(prog, here)}, {here}, ""));
          break;
        }
        if (pos[static_cast<size_t>(w.veu)] <= static_cast<size_t>(w.order)) {
          next[static_cast<size_t>(v)] = w.veu;
          waitsFor[static_cast<size_t>(v)] = w;
          break;
        }
      }
    }
    if (!any) return;
    // Follow the wait-for edges; every cycle found is a deadlock.
    std::vector<int> state(static_cast<size_t>(V), 0);  // 0 new, 1 on path, 2 done
    for (int s = 0; s < V; ++s) {
      std::vector<int> path;
      int v = s;
      while (v >= 0 && state[static_cast<size_t>(v)] == 0) {
        state[static_cast<size_t>(v)] = 1;
        path.push_back(v);
        v = next[static_cast<size_t>(v)];
      }
      if (v >= 0 && state[static_cast<size_t>(v)] == 1) {
        auto from = std::find(path.begin(), path.end(), v);
        PlanProblem pr = mk(ProblemKind::Deadlock, "deadlock in program " + std::to_string(p) + ": ", p);
        for (auto it = from; it != path.end(); ++it) {
          const int u = *it;
          const Slot here{u, static_cast<int32_t>(pos[static_cast<size_t>(u)])};
          const RTask g = guarded(prog, here);
          if (g.op >= 0) {
            pr.tasks.push_back(g);
            pr.places.push_back(here);
            if (pr.node.empty()) pr.node = opName(g.op);
          }
          pr.message += (it == from ? "" : ", which ") + std::string("the barrier at ") + at(here) + " before " +
                        guardName(prog, here) + " waits for " + describe(prog, waitsFor[static_cast<size_t>(u)]);
        }
        pr.message += ", which is the first barrier again: a wait cycle";
        add(std::move(pr));
      }
      for (int u : path) state[static_cast<size_t>(u)] = 2;
    }
  }

  const Plan& plan_;
  const ir::Graph& graph_;
  size_t cap_;
  ValidationReport report_;
  std::vector<std::vector<int32_t>> producers_;
  RTaskNeeds needs_;
  std::vector<std::vector<std::vector<Where>>> where_;  // op -> rtask -> placements
  std::vector<int> lastProgram_;  // op -> latest program holding one of its rTasks
};

}  // namespace

PlanProblem unorderedProducer(const Plan& plan, int program, RTask consumer, Slot at, RTask producer,
                              Slot producerAt) {
  auto name = [&](RTask t) { return plan.ops.at(static_cast<size_t>(t.op)).name + "[" + std::to_string(t.rtask) + "]"; };
  auto where = [](Slot s) { return "vEU " + std::to_string(s.veu) + " order " + std::to_string(s.order); };
  const std::string why =
      at.veu == producerAt.veu ? "it comes later on the same vEU" : "no barrier chain orders them";
  return mk(ProblemKind::Dependency,
            name(consumer) + " (program " + std::to_string(program) + " " + where(at) + ") may start before its producer " +
                name(producer) + " (" + where(producerAt) + ") finishes: " + why,
            program, {consumer, producer}, {at, producerAt}, plan.ops.at(static_cast<size_t>(consumer.op)).name);
}

std::vector<std::vector<int32_t>> producersFromGraph(const Plan& plan, const ir::Graph& given,
                                                     std::vector<PlanProblem>& problems) {
  const ir::Graph& graph = graphOf(plan, given);  // the plan's own after a merge
  std::map<ir::NodeId, int32_t> planIndex;
  for (size_t i = 0; i < plan.ops.size(); ++i) planIndex[plan.ops[i].node] = static_cast<int32_t>(i);
  std::vector<std::vector<int32_t>> producers(plan.ops.size());
  for (size_t i = 0; i < plan.ops.size(); ++i) producers[i] = plan.ops[i].producers;
  auto dag = buildOperatorGraph(graph, [&](ir::NodeId id) {
    auto it = planIndex.find(id);
    return it != planIndex.end() && plan.ops[static_cast<size_t>(it->second)].isView;
  });
  if (!dag) {
    problems.push_back(mk(ProblemKind::Structure, "the graph has no topological order: " + dag.errorText()));
    return producers;
  }
  for (const OperatorNode& n : dag->ops) {
    auto it = planIndex.find(n.node);
    if (it == planIndex.end()) {
      problems.push_back(
          mk(ProblemKind::Structure, "operator '" + n.name + "' of the graph is not in the plan", -1, {}, {}, n.name));
      continue;
    }
    std::vector<int32_t> ps;
    for (int32_t p : n.producers) {
      auto pi = planIndex.find(dag->ops[static_cast<size_t>(p)].node);
      if (pi != planIndex.end()) ps.push_back(pi->second);
    }
    producers[static_cast<size_t>(it->second)] = std::move(ps);
  }
  return producers;
}

ValidationReport checkPlan(const Plan& plan, const ir::Graph& given, size_t maxProblems) {
  const ir::Graph& graph = graphOf(plan, given);  // the plan's own after a merge
  return Checker(plan, graph, maxProblems).run();
}

std::vector<ir::Diagnostic> validate(const Plan& plan, const ir::Graph& graph) {
  return diagnosticsOf(checkPlan(plan, graph));
}

std::vector<ir::Diagnostic> diagnosticsOf(const ValidationReport& r) {
  std::vector<ir::Diagnostic> out;
  for (const PlanProblem& p : r.problems) {
    ir::Diagnostic d = ir::makeError(problemKindName(p.kind) + ": " + p.message, p.node);
    if (!p.tasks.empty()) {
      d.rtaskOp = p.tasks.front().op;
      d.rtask = p.tasks.front().rtask;
    }
    out.push_back(std::move(d));
  }
  if (r.omitted) {
    ir::Diagnostic d;
    d.severity = ir::Severity::Note;
    d.message = std::to_string(r.omitted) + " more problems not listed";
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace rammer::schedule

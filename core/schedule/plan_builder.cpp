#include "core/schedule/plan_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <queue>
#include <set>

#include "core/schedule/critical_order.h"
#include "core/schedule/resident_pins.h"

namespace rammer::schedule {

std::string formatUs(double us) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g us", us);
  return buf;
}

namespace {

std::string taskName(const OperatorGraph& dag, RTask t) {
  return dag.ops.at(static_cast<size_t>(t.op)).name + "[" + std::to_string(t.rtask) + "]";
}

std::string candidateList(const std::vector<kernels::RKernel>& cs) {
  std::string s;
  for (const auto& k : cs) s += (s.empty() ? "" : ", ") + k.name;
  return s.empty() ? "none" : s;
}

}  // namespace

std::string PlanBuilder::label(int32_t op) const {
  const OperatorNode& n = dag_.ops.at(static_cast<size_t>(op));
  return n.name.empty() ? "#" + std::to_string(op) + " (" + n.opType + ")" : n.name;
}

ir::Result<PlanBuilder> PlanBuilder::start(std::string policy, const ir::Graph& graph, const device::DeviceSpec& device,
                                           const Constraints& constraints, const PolicyOptions& options) {
  PlanBuilder b;
  b.graph_ = &graph;
  b.options_ = options;
  b.constraints_ = constraints;
  b.plan_.policy = std::move(policy);
  b.plan_.device = device;
  if (device.sms <= 0) return ir::makeError("device '" + device.id + "' has no SMs");

  const PolicyInfo& info = policyInfo(findPolicy(b.plan_.policy).value_or(PolicyId::Sequential));
  if (info.id != PolicyId::Sequential && info.placesStatically && options.residentCells)
    b.residentHomes_.emplace();
  std::vector<ir::Diagnostic> errors;
  std::map<ir::NodeId, kernels::OperatorKernels> found;
  auto topo = graph.topologicalOrder();
  if (!topo) return topo.errors();
  for (ir::NodeId id : *topo) {
    auto ks = options.kernelSource(graph, id);
    if (!ks) {
      errors.insert(errors.end(), ks.errors().begin(), ks.errors().end());
      continue;
    }
    const ir::Node& n = graph.node(id);
    // A persistent cell keeps its weights only where a policy keeps rTask j
    // on one vEU of one program (resident_pins.h); a launch per operator
    // or a vEU taking rTasks at run time would load them every step. A
    // schedule edit may still pin one (it runs right, loading each time).
    if (!b.residentHomes_) {
      const auto pin = constraints.kernelFor.find(n.name);
      std::erase_if(ks->candidates, [&](const kernels::RKernel& k) {
        return k.residentBytes > 0 && (pin == constraints.kernelFor.end() || pin->second != k.name);
      });
    }
    if (!ks->isView && ks->candidates.empty())
      errors.push_back(ir::makeError("no rKernel candidates for " + n.opType, n.name));
    found.emplace(id, std::move(*ks));
  }
  if (!errors.empty()) return errors;

  auto dag = buildOperatorGraph(graph, [&](ir::NodeId id) { return found.at(id).isView; });
  if (!dag) return dag.errors();
  b.dag_ = std::move(*dag);
  for (const OperatorNode& n : b.dag_.ops) {
    PlannedOp p;
    p.node = n.node;
    p.name = n.name;
    p.opType = n.opType;
    p.isView = n.isView;
    p.producers = n.producers;
    if (n.isView) p.kernelRule = "view";
    b.plan_.ops.push_back(std::move(p));
    b.candidates_.push_back(std::move(found.at(n.node).candidates));
  }

  // Names in the constraints must be operators that have rTasks.
  auto checkOp = [&](const std::string& node, const std::string& what) -> int32_t {
    auto op = b.dag_.find(node);
    if (!op) {
      errors.push_back(ir::makeError(what + ": no operator named '" + node + "' in the graph", node));
      return -1;
    }
    if (b.dag_.ops[static_cast<size_t>(*op)].isView) {
      errors.push_back(ir::makeError(what + ": '" + node + "' is a view (" + b.dag_.ops[static_cast<size_t>(*op)].opType +
                                         ") and has no rTasks",
                                     node));
      return -1;
    }
    return *op;
  };
  for (const auto& [node, kernel] : constraints.kernelFor) {
    const int32_t op = checkOp(node, "pinned rKernel");
    if (op < 0) continue;
    const auto& cs = b.candidates(op);
    // Captured through an alias: clang 15 cannot capture a structured binding.
    if (std::none_of(cs.begin(), cs.end(), [&want = kernel](const kernels::RKernel& k) { return k.name == want; }))
      errors.push_back(ir::makeError("pinned rKernel '" + kernel + "' is not a candidate for '" + node +
                                         "'; candidates: " + candidateList(cs),
                                     node));
  }
  for (size_t i = 0; i < constraints.pins.size(); ++i) {
    const TaskPin& p = constraints.pins[i];
    const int32_t op = checkOp(p.node, "pin");
    if (op < 0) continue;
    if (p.veu < 0) errors.push_back(ir::makeError("pin of '" + p.node + "': vEU must be >= 0", p.node));
    b.pinsByOp_[op].push_back(i);
  }
  for (const auto& node : constraints.cutBefore) {
    checkOp(node, "cut before");
    if (constraints.noCutBefore.count(node))
      errors.push_back(ir::makeError("both a cut and a merge before '" + node + "'", node));
  }
  for (const auto& node : constraints.noCutBefore) checkOp(node, "merge before");
  for (const auto& [node, shape] : constraints.shapeFor) {
    checkOp(node, "vDevice shape");
    if (shape != 1 && shape != 2 && shape != 4)
      errors.push_back(ir::makeError("vDevice shape of '" + node + "': " + std::to_string(shape) +
                                         " vEUs per SM; the shapes are 1, 2 and 4",
                                     node));
  }
  for (const auto& [node, shards] : constraints.claimShardsFor) {
    checkOp(node, "claim shards");
    if (shards < 1)
      errors.push_back(
          ir::makeError("claim shards of '" + node + "': " + std::to_string(shards) + "; at least 1", node));
  }
  if (!errors.empty()) return errors;
  return b;
}

KernelEstimate PlanBuilder::estimate(const kernels::RKernel& k, int veusPerSM) const {
  KernelEstimate e;
  auto l = makeVDevice(plan_.device, {KernelUse{"", &k}}, veusPerSM);
  if (!l) {
    e.opUs = e.smUs = e.taskUs = std::numeric_limits<double>::infinity();
    return e;
  }
  e.fits = true;
  e.veusPerSM = l->veusPerSM;
  e.numVEUs = l->numVEUs;
  e.taskUs = taskTime(k, e.veusPerSM);
  const int64_t n = std::max<int64_t>(k.numRTasks, 0);
  const int64_t rounds = (n + e.numVEUs - 1) / e.numVEUs;
  e.opUs = static_cast<double>(rounds) * e.taskUs;
  e.smUs = static_cast<double>(n) * e.taskUs / e.veusPerSM;
  return e;
}

namespace {
// Index of the candidate with the smallest `metric`; the first on ties.
template <class Metric>
size_t argmin(const std::vector<kernels::RKernel>& candidates, Metric metric) {
  size_t best = 0;
  double bestValue = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double v = metric(candidates[i]);
    if (v < bestValue) bestValue = v, best = i;
  }
  return best;
}
}  // namespace

size_t PlanBuilder::fastest(int32_t op, int veusPerSM) const {
  return argmin(candidates(op), [&](const kernels::RKernel& k) { return estimate(k, veusPerSM).opUs; });
}

size_t PlanBuilder::mostEfficient(int32_t op, int veusPerSM) const {
  return argmin(candidates(op), [&](const kernels::RKernel& k) { return estimate(k, veusPerSM).smUs; });
}

void PlanBuilder::tryKernel(int32_t op, size_t candidate) {
  plan_.ops.at(static_cast<size_t>(op)).kernel = candidates(op).at(candidate);
}

int PlanBuilder::pinnedShape(int32_t op) const {
  auto it = constraints_.shapeFor.find(opName(op));
  return it == constraints_.shapeFor.end() ? 0 : it->second;
}

int PlanBuilder::pinnedKernel(int32_t op) const {
  auto it = constraints_.kernelFor.find(opName(op));
  if (it == constraints_.kernelFor.end()) return -1;
  const auto& cs = candidates(op);
  for (size_t i = 0; i < cs.size(); ++i)
    if (cs[i].name == it->second) return static_cast<int>(i);
  return -1;  // checked in start()
}

void PlanBuilder::decide(std::string line) {
  if (!plan_.steps.empty()) ++plan_.steps.back().decisions;
  plan_.decisions.push_back(std::move(line));
}

void PlanBuilder::beginStep(std::string title, std::vector<int32_t> ops) {
  plan_.steps.push_back(PlanStep{std::move(title), std::move(ops), plan_.decisions.size(), 0});
}

void PlanBuilder::choose(int32_t op, size_t candidate, const std::string& rule, const std::string& why) {
  PlannedOp& p = plan_.ops.at(static_cast<size_t>(op));
  p.kernel = candidates(op).at(candidate);
  p.kernelRule = rule;
  p.options.clear();
  for (const kernels::RKernel& k : candidates(op)) {
    const KernelEstimate e = estimate(k);
    p.options.push_back(KernelOption{k.name, k.numRTasks, e.opUs, e.smUs, e.fits});
  }
  p.fastestOption = static_cast<int>(fastest(op));
  p.mostEfficientOption = static_cast<int>(mostEfficient(op));
  std::string line = "'" + label(op) + "': rKernel '" + p.kernel.name + "' (" + rule;
  if (!why.empty()) line += ": " + why;
  line += ")";
  decide(std::move(line));
}

void PlanBuilder::choosePinnedOrFastest(int32_t op) {
  if (const int pinned = pinnedKernel(op); pinned >= 0) {
    choose(op, static_cast<size_t>(pinned), "pinned", "schedule edit");
    return;
  }
  const size_t f = fastest(op);
  const auto& cs = candidates(op);
  std::string why;
  if (cs.size() > 1) {
    for (size_t i = 0; i < cs.size(); ++i)
      why += (i ? ", " : "") + cs[i].name + " " + formatUs(estimate(cs[i]).opUs);
  } else {
    why = "only candidate, " + formatUs(estimate(cs[f]).opUs);
  }
  choose(op, f, "fastest", why);
}

ir::Result<VDevice> PlanBuilder::layout(const std::vector<int32_t>& ops, int veusPerSM,
                                        int64_t reservedSharedBytes) const {
  std::vector<KernelUse> uses;
  for (int32_t op : ops) uses.push_back(KernelUse{label(op), &kernel(op)});
  return makeVDevice(plan_.device, uses, veusPerSM, reservedSharedBytes);
}

bool PlanBuilder::cutBefore(int32_t op) const { return constraints_.cutBefore.count(opName(op)) != 0; }
bool PlanBuilder::noCutBefore(int32_t op) const { return constraints_.noCutBefore.count(opName(op)) != 0; }
bool PlanBuilder::edited(int32_t op) const {
  return constraints_.kernelFor.count(opName(op)) != 0 || pinsByOp_.count(op) != 0 || cutBefore(op) ||
         noCutBefore(op) || constraints_.shapeFor.count(opName(op)) != 0;
}

const TaskPin* PlanBuilder::pinFor(RTask task) const {
  auto it = pinsByOp_.find(task.op);
  if (it == pinsByOp_.end()) return nullptr;
  const TaskPin* whole = nullptr;
  for (size_t i : it->second) {
    const TaskPin& p = constraints_.pins[i];
    if (p.rtask == task.rtask) return &p;  // an rTask pin beats a whole-operator pin
    if (p.rtask < 0) whole = &p;
  }
  return whole;
}

ir::Result<int> PlanBuilder::pinnedVEU(RTask task, int numVEUs) const {
  const TaskPin* p = pinFor(task);
  if (!p || p->veu < 0) return residentHomes_ ? residentHomes_->home(kernel(task.op), task.rtask, numVEUs) : -1;
  if (p->veu >= numVEUs)
    return ir::makeError("pin of " + taskName(dag_, task) + " to vEU " + std::to_string(p->veu) +
                             ": its program has only " + std::to_string(numVEUs) + " vEUs (0.." +
                             std::to_string(numVEUs - 1) + ")",
                         p->node);
  return p->veu;
}

ir::Result<RProgram> PlanBuilder::materialize(const ProgramDraft& draft, const RTaskNeeds& needs) const {
  const int numVEUs = draft.layout.numVEUs;
  for (const auto& [t, v] : draft.placements)
    if (v < 0 || v >= numVEUs) return ir::makeError("internal: rTask " + taskName(dag_, t) + " placed off the program");
  // Operator-level dependencies inside this program.
  std::set<int32_t> inProgram(draft.ops.begin(), draft.ops.end());
  auto depOps = [&](int32_t op) {
    std::vector<int32_t> d;
    for (int32_t p : dag_.ops.at(static_cast<size_t>(op)).producers)
      if (inProgram.count(p)) d.push_back(p);
    if (auto it = draft.extraDeps.find(op); it != draft.extraDeps.end())
      for (int32_t p : it->second)
        if (inProgram.count(p)) d.push_back(p);
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    return d;
  };
  std::map<int32_t, std::vector<int32_t>> deps;
  for (int32_t op : draft.ops) deps[op] = depOps(op);

  // Per-vEU sequences in critical-path order (critical_order.h) or the
  // policy's; remember the global append order.
  std::vector<std::pair<RTask, int>> order;
  if (options_.order == RTaskOrder::CriticalPath) {
    OrderProblem problem;
    problem.numVEUs = numVEUs;
    problem.placements = draft.placements;
    static const std::vector<int32_t> none;
    problem.deps = [&](int32_t op) -> const std::vector<int32_t>& {
      auto it = deps.find(op);
      return it == deps.end() ? none : it->second;
    };
    problem.taskUs = [&](int32_t op) { return taskTime(kernel(op), draft.layout.veusPerSM); };
    problem.handoffUs = options_.handoffTime ? options_.handoffTime(plan_.device) : plan_.device.barrierLatencyUs;
    order = criticalPathOrder(problem);
  }
  const auto& placements = options_.order == RTaskOrder::CriticalPath ? order : draft.placements;
  std::vector<std::vector<RTask>> seq(static_cast<size_t>(numVEUs));
  std::map<RTask, size_t> appendIndex;
  for (size_t i = 0; i < placements.size(); ++i) {
    const auto& [t, v] = placements[i];
    seq[static_cast<size_t>(v)].push_back(t);
    appendIndex[t] = i;
  }

  // Pinned orders: take the pinned rTasks out, then insert them at their
  // positions in increasing order so earlier insertions keep their place.
  for (int v = 0; v < numVEUs; ++v) {
    auto& s = seq[static_cast<size_t>(v)];
    std::vector<std::pair<int64_t, RTask>> pinned;
    std::map<int32_t, int64_t> wholeOpNext;  // whole-operator pins: consecutive orders
    for (const RTask& t : s) {
      const TaskPin* p = pinFor(t);
      if (!p || p->order < 0 || p->veu != v) continue;
      int64_t order = p->order;
      if (p->rtask < 0) order += wholeOpNext[t.op]++;
      pinned.emplace_back(order, t);
    }
    if (pinned.empty()) continue;
    std::stable_sort(pinned.begin(), pinned.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::set<RTask> isPinned;
    for (const auto& pt : pinned) isPinned.insert(pt.second);
    std::erase_if(s, [&](const RTask& t) { return isPinned.count(t) != 0; });
    for (const auto& [order, t] : pinned) {
      const auto at = static_cast<size_t>(std::min<int64_t>(order, static_cast<int64_t>(s.size())));
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), t);
    }
  }

  std::map<int32_t, int64_t> remaining;  // rTasks of the op not yet appended
  for (const auto& pl : draft.placements) ++remaining[pl.first.op];
  // Dependencies not yet complete, per op, kept current as ops complete:
  // greedy's stage barriers give ops hundreds of dependencies, and every
  // blocked vEU is offered again whenever an op completes.
  std::map<int32_t, std::vector<int32_t>> dependents;
  std::map<int32_t, size_t> openDeps;
  for (const auto& [op, ds] : deps) {
    size_t open = 0;
    for (int32_t p : ds)
      if (remaining[p] > 0) ++open, dependents[p].push_back(op);
    openDeps[op] = open;
  }
  auto ready = [&](RTask t) { return openDeps[t.op] == 0; };

  // Merge the sequences: always append the ready head that came first in
  // the policy's order, so without pins the policy's order is replayed.
  RProgram prog(numVEUs);
  std::map<int32_t, std::map<int, RTask>> lastOn;  // op -> vEU -> its last rTask there
  std::map<int32_t, std::vector<RTask>> waitsOf;    // op -> what each of its rTasks waits for
  std::vector<size_t> head(static_cast<size_t>(numVEUs), 0);
  using Item = std::pair<size_t, int>;  // (append index, vEU)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  std::vector<int> blocked;
  auto offer = [&](int v) {
    const auto& s = seq[static_cast<size_t>(v)];
    const size_t h = head[static_cast<size_t>(v)];
    if (h >= s.size()) return;
    if (ready(s[h])) heap.emplace(appendIndex.at(s[h]), v);
    else blocked.push_back(v);
  };
  for (int v = 0; v < numVEUs; ++v) offer(v);
  size_t placed = 0;
  while (!heap.empty()) {
    const int v = heap.top().second;
    heap.pop();
    const RTask t = seq[static_cast<size_t>(v)][head[static_cast<size_t>(v)]++];
    // An op's rTasks all wait for the same thing: the last rTask of each
    // dependency on each vEU, and only the latest of those per vEU. The
    // dependencies are complete before its first rTask is appended (ready()),
    // so this is computed once per op; greedy's stage barriers would
    // otherwise repeat it for every rTask.
    // Producers whose rTasks this one needs only some of (GraphTurbo's
    // instances): its own waits, the latest needed rTask per vEU.
    std::vector<RTask> own;
    bool fine = false;
    if (needs.any() && !draft.extraDeps.count(t.op)) {
      std::map<int, std::pair<int32_t, RTask>> latest;  // vEU -> (order, rTask)
      auto consider = [&](RTask last) {
        const Slot at = prog.slotOf(last);
        auto [it, fresh] = latest.try_emplace(at.veu, at.order, last);
        if (!fresh && it->second.first < at.order) it->second = {at.order, last};
      };
      for (int32_t p : deps[t.op]) {
        if (auto some = needs.needed(t, p)) {
          fine = true;
          for (int64_t r : *some) consider(RTask{p, r});
        } else {
          for (const auto& [u, last] : lastOn[p]) consider(last);
        }
      }
      for (const auto& [u, last] : latest) own.push_back(last.second);
    }
    auto cached = fine ? waitsOf.end() : waitsOf.find(t.op);
    if (!fine && cached == waitsOf.end()) {
      std::map<int, std::pair<int32_t, RTask>> latest;  // vEU -> (order, rTask)
      for (int32_t p : deps[t.op])
        for (const auto& [u, last] : lastOn[p]) {
          const int32_t order = prog.slotOf(last).order;
          auto [it, fresh] = latest.try_emplace(u, order, last);
          if (!fresh && it->second.first < order) it->second = {order, last};
        }
      std::vector<RTask> waits;
      waits.reserve(latest.size());
      for (const auto& [u, last] : latest) waits.push_back(last.second);
      cached = waitsOf.emplace(t.op, std::move(waits)).first;
    }
    const std::vector<RTask>& waits = fine ? own : cached->second;
    if (!waits.empty()) prog.wait(t, waits);
    prog.append(t, v);
    lastOn[t.op][v] = t;
    if (++placed % 1024 == 0 && cancelled()) return cancelledError();
    const bool opDone = --remaining[t.op] == 0;
    if (opDone)
      for (int32_t c : dependents[t.op]) --openDeps[c];
    offer(v);
    if (opDone) {
      std::vector<int> again;
      again.swap(blocked);
      for (int u : again) offer(u);
    }
  }
  if (placed != draft.placements.size()) {
    std::string which;
    for (int v : blocked) {
      const RTask t = seq[static_cast<size_t>(v)][head[static_cast<size_t>(v)]];
      if (which.size() > 300) break;
      which += (which.empty() ? "" : "; ") + taskName(dag_, t) + " at vEU " + std::to_string(v) + " order " +
               std::to_string(head[static_cast<size_t>(v)]);
    }
    return ir::makeError("the pinned vEUs/orders cannot be honoured: these rTasks would run before their producers "
                         "on the same vEU or wait in a cycle: " +
                         which);
  }
  return prog;
}

ir::Diagnostic PlanBuilder::cancelledError() { return ir::makeError("scheduling cancelled"); }

ir::Result<Plan> PlanBuilder::finish(std::vector<ProgramDraft> drafts) && {
  std::vector<ir::Diagnostic> errors;
  for (const auto& [node, shards] : constraints_.claimShardsFor)
    errors.push_back(ir::makeError("claim shards of '" + node + "': a " + plan_.policy +
                                       " plan places every rTask at compile time and claims none at run time; "
                                       "claim_shards applies to the dynamic policy",
                                   node));
  for (const TaskPin& p : constraints_.pins) {
    auto op = dag_.find(p.node);
    if (!op || p.rtask < 0) continue;
    if (p.rtask >= numRTasks(*op))
      errors.push_back(ir::makeError("pin of " + p.node + "[" + std::to_string(p.rtask) + "]: rKernel '" +
                                         kernel(*op).name + "' has only " + std::to_string(numRTasks(*op)) +
                                         " rTasks",
                                     p.node));
  }
  if (!errors.empty()) return errors;
  const RTaskNeeds needs(plan_.ops, *graph_);
  for (ProgramDraft& d : drafts) {
    if (cancelled()) return cancelledError();
    // A value's homes move when a candidate of more rTasks asks after the
    // policy placed some steps (ResidentHomes): every step to the final one.
    int moved = 0;
    if (residentHomes_)
      for (auto& [task, veu] : d.placements) {
        const TaskPin* pin = pinFor(task);
        if (pin && pin->veu >= 0) continue;
        const int home = residentHomes_->home(kernel(task.op), task.rtask, d.layout.numVEUs);
        if (home >= 0 && home != veu) veu = home, ++moved;
      }
    if (moved > 0) decide(std::to_string(moved) + " rTasks of persistent cells moved to their weight slices' vEUs");
    auto prog = materialize(d, needs);
    if (!prog) return prog.errors();
    plan_.programs.push_back(ProgramInfo{std::move(*prog), d.layout.veusPerSM, d.cutReason});
  }
  return std::move(plan_);
}

ir::Result<Plan> PlanBuilder::finishDynamic(std::vector<ProgramDraft> drafts) && {
  std::vector<ir::Diagnostic> errors;
  for (const TaskPin& p : constraints_.pins)
    if (p.veu >= 0 || p.order >= 0)
      errors.push_back(ir::makeError("pin of " + p.node + (p.rtask >= 0 ? "[" + std::to_string(p.rtask) + "]" : "") +
                                         " to a vEU: the dynamic policy places rTasks at run time (a free vEU "
                                         "takes the next ready one); it takes pinned rKernels, cuts and shapes only",
                                     p.node));
  if (!errors.empty()) return errors;
  for (ProgramDraft& d : drafts) {
    if (cancelled()) return cancelledError();
    const int shape = d.layout.veusPerSM;
    auto dp = std::make_shared<DynamicProgram>(
        buildDynamicProgram(plan_, d.ops, [&](int32_t op) { return estimate(kernel(op), shape).opUs; }));
    // Claim shards: the value the edits give any operator of the program.
    std::string shardsFrom;
    for (int32_t op : d.ops) {
      auto it = constraints_.claimShardsFor.find(opName(op));
      if (it == constraints_.claimShardsFor.end()) continue;
      if (!shardsFrom.empty() && it->second != dp->claimShards)
        errors.push_back(ir::makeError("claim shards of '" + it->first + "': " + std::to_string(it->second) +
                                           ", but '" + shardsFrom + "' in the same program asks for " +
                                           std::to_string(dp->claimShards),
                                       it->first));
      else if (it->second > d.layout.numVEUs)
        errors.push_back(ir::makeError("claim shards of '" + it->first + "': " + std::to_string(it->second) +
                                           " for a program of " + std::to_string(d.layout.numVEUs) +
                                           " vEUs; a shard per vEU at most",
                                       it->first));
      shardsFrom = it->first;
      dp->claimShards = it->second;
    }
    plan_.programs.push_back(ProgramInfo{RProgram(d.layout.numVEUs), shape, d.cutReason, std::move(dp)});
  }
  if (!errors.empty()) return errors;
  return std::move(plan_);
}

}  // namespace rammer::schedule

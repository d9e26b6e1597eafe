#include "core/schedule/barrier_removal.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/schedule/ordering_clocks.h"

namespace rammer::schedule {

namespace {

// A barrier by vEU and its index among that vEU's barriers.
int64_t key(int veu, int32_t index) { return (static_cast<int64_t>(veu) << 32) | static_cast<uint32_t>(index); }

std::string slotText(int program, Slot s) {
  return "program " + std::to_string(program) + " vEU " + std::to_string(s.veu) + " order " + std::to_string(s.order);
}

}  // namespace

struct BarrierRemoval::Program {
  struct Waiter {
    int32_t order;  // the waited slot's order on the waited vEU
    int veu;        // the waiting barrier
    int32_t index;
  };

  const RProgram& prog;
  OrderingClocks clocks;
  LastSlots latest;
  std::vector<std::vector<Waiter>> waitedBy;  // per vEU, by waited order

  explicit Program(const RProgram& p)
      : prog(p), clocks(p), latest(lastSlotsByOp(p, [](RTask) { return true; })) {
    waitedBy.resize(static_cast<size_t>(p.numVEUs()));
    for (int x = 0; x < p.numVEUs(); ++x) {
      const auto& bs = clocks.barriers(x);
      for (size_t i = 0; i < bs.size(); ++i)
        for (const Slot& w : barrierAt(x, i).waits)
          waitedBy[static_cast<size_t>(w.veu)].push_back({w.order, x, static_cast<int32_t>(i)});
    }
    for (auto& ws : waitedBy)
      std::sort(ws.begin(), ws.end(), [](const Waiter& a, const Waiter& b) { return a.order < b.order; });
  }

  const Barrier& barrierAt(int veu, size_t index) const {
    return std::get<Barrier>(prog.stream(veu)[static_cast<size_t>(clocks.barriers(veu)[index].order)]);
  }
  // The first barrier waiting on a slot of `veu` at or after `order`.
  std::vector<Waiter>::const_iterator waitersFrom(int veu, int32_t order) const {
    const auto& ws = waitedBy[static_cast<size_t>(veu)];
    return std::lower_bound(ws.begin(), ws.end(), order, [](const Waiter& w, int32_t q) { return w.order < q; });
  }
  // Where the instructions a barrier governs end: its vEU's next barrier, or the stream's end.
  int32_t governedEnd(int veu, size_t index) const {
    const auto& bs = clocks.barriers(veu);
    return index + 1 < bs.size() ? bs[index + 1].order : static_cast<int32_t>(prog.stream(veu).size());
  }
};

BarrierRemoval::BarrierRemoval() = default;
BarrierRemoval::~BarrierRemoval() = default;
BarrierRemoval::BarrierRemoval(BarrierRemoval&&) noexcept = default;
BarrierRemoval& BarrierRemoval::operator=(BarrierRemoval&&) noexcept = default;

ir::Result<BarrierRemoval> BarrierRemoval::analyse(const Plan& plan, const ir::Graph& graph) {
  const ValidationReport report = checkPlan(plan, graph, 5);
  if (!report.ok()) {
    std::vector<ir::Diagnostic> errors;
    for (const PlanProblem& p : report.problems)
      errors.push_back(ir::makeError("the plan is not valid: " + p.message, p.node));
    return errors;
  }
  BarrierRemoval out;
  out.plan_ = &plan;
  std::vector<PlanProblem> ignored;  // none: the plan passed the same resolution above
  out.producers_ = producersFromGraph(plan, graph, ignored);
  out.needs_ = RTaskNeeds(plan.ops, graphOf(plan, graph));
  for (const ProgramInfo& info : plan.programs) out.programs_.push_back(std::make_unique<Program>(info.program));
  return out;
}

std::vector<std::pair<int, Slot>> BarrierRemoval::barriers() const {
  std::vector<std::pair<int, Slot>> out;
  for (size_t p = 0; p < programs_.size(); ++p)
    for (int v = 0; v < programs_[p]->prog.numVEUs(); ++v)
      for (const auto& b : programs_[p]->clocks.barriers(v)) out.push_back({static_cast<int>(p), Slot{v, b.order}});
  return out;
}

ir::Result<BarrierRemoval::Verdict> BarrierRemoval::without(int program, Slot at) const {
  if (program < 0 || static_cast<size_t>(program) >= programs_.size() || at.veu < 0 ||
      at.veu >= programs_[static_cast<size_t>(program)]->prog.numVEUs())
    return ir::makeError("no barrier at " + slotText(program, at) + ": no such program or vEU");
  const Program& P = *programs_[static_cast<size_t>(program)];
  const OrderingClocks& clocks = P.clocks;
  const int32_t removed = clocks.barrierIndexAt(at.veu, at.order);
  if (removed < 0 || clocks.barriers(at.veu)[static_cast<size_t>(removed)].order != at.order)
    return ir::makeError("no barrier at " + slotText(program, at));
  const auto first = P.waitersFrom(at.veu, at.order);
  if (first != P.waitedBy[static_cast<size_t>(at.veu)].end() && first->order == at.order) {
    const Program::Waiter& w = *first;
    return ir::makeError("the barrier at " + slotText(program, at) + " is itself waited on by the barrier at " +
                         slotText(program, Slot{w.veu, clocks.barriers(w.veu)[static_cast<size_t>(w.index)].order}) +
                         "; deleting it renumbers that wait: check the edited plan with checkPlan");
  }

  const size_t nv = static_cast<size_t>(P.prog.numVEUs());
  // Knowledge after each barrier that differs without the removed one.
  std::unordered_map<int64_t, Knowledge> changed;
  auto know = [&](int veu, int32_t index) -> const Knowledge& {
    if (auto it = changed.find(key(veu, index)); it != changed.end()) return it->second;
    return clocks.snapshot(clocks.barriers(veu)[static_cast<size_t>(index)].snapshot);
  };
  // Happens-before order of the plan with the barrier is still one without it
  // (only wait edges go), so each barrier is re-derived once, after its inputs.
  using Item = std::tuple<int32_t, int, int32_t>;  // rank, vEU, index
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  std::unordered_set<int64_t> queued;
  auto push = [&](int veu, int32_t index) {
    if (queued.insert(key(veu, index)).second)
      queue.push({clocks.barriers(veu)[static_cast<size_t>(index)].rank, veu, index});
  };
  // Slots of the plan without the barrier: later ones on its vEU move up.
  auto edited = [&](Slot s) { return s.veu == at.veu && s.order > at.order ? Slot{s.veu, s.order - 1} : s; };

  push(at.veu, removed);
  Knowledge k(nv);
  std::unordered_set<const Knowledge*> joined;
  while (!queue.empty()) {
    const auto [rank, x, i] = queue.top();
    queue.pop();
    (void)rank;
    if (i > 0)
      k = know(x, i - 1);
    else
      std::fill(k.begin(), k.end(), -1);
    if (!(x == at.veu && i == removed)) {
      joined.clear();
      for (const Slot& w : P.barrierAt(x, static_cast<size_t>(i)).waits) {
        const auto u = static_cast<size_t>(w.veu);
        if (k[u] >= w.order) continue;  // known, and (closed) all it knew
        const int32_t b = clocks.barrierIndexAt(w.veu, w.order);
        if (b >= 0 && k[u] < clocks.barriers(w.veu)[static_cast<size_t>(b)].order) {
          const Knowledge& other = know(w.veu, b);
          if (joined.insert(&other).second) joinKnowledge(k, other);
        }
        k[u] = std::max(k[u], w.order);
      }
    }
    const OrderingClocks::BarrierClock& clock = clocks.barriers(x)[static_cast<size_t>(i)];
    if (k == clocks.snapshot(clock.snapshot)) continue;  // nothing downstream changes through here
    const Knowledge& now = changed.emplace(key(x, i), k).first->second;

    // The rTasks this barrier guards, against every producer on other vEUs
    // (same-vEU order does not change).
    const int32_t end = P.governedEnd(x, static_cast<size_t>(i));
    const auto& stream = P.prog.stream(x);
    for (int32_t o = clock.order + 1; o < end; ++o) {
      const RTask task = std::get<Exec>(stream[static_cast<size_t>(o)]).task;
      for (int32_t prod : producers_[static_cast<size_t>(task.op)]) {
        if (auto some = needs_.needed(task, prod)) {
          for (int64_t r : *some) {
            const Slot s = P.prog.slotOf(RTask{prod, r});
            if (s.veu >= 0 && s.veu != x && now[static_cast<size_t>(s.veu)] < s.order)
              return Verdict{true, unorderedProducer(*plan_, program, task, edited(Slot{x, o}), RTask{prod, r}, edited(s))};
          }
          continue;
        }
        auto it = P.latest.find(prod);
        if (it == P.latest.end()) continue;
        for (const LastSlot& last : it->second)
          if (last.veu != x && now[static_cast<size_t>(last.veu)] < last.order)
            return Verdict{true, unorderedProducer(*plan_, program, task, edited(Slot{x, o}), last.task,
                                                   edited(Slot{last.veu, last.order}))};
      }
    }
    // Everything that reads this knowledge: the vEU's next barrier and the
    // barriers waiting on the slots it governs.
    if (static_cast<size_t>(i) + 1 < clocks.barriers(x).size()) push(x, i + 1);
    const auto& ws = P.waitedBy[static_cast<size_t>(x)];
    for (auto it = P.waitersFrom(x, clock.order); it != ws.end() && it->order < end; ++it) push(it->veu, it->index);
  }
  return Verdict{};
}

}  // namespace rammer::schedule

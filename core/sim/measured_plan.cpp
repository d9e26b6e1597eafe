#include "core/sim/measured_plan.h"

#include <algorithm>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "core/schedule/plan_builder.h"
#include "core/schedule/vdevice.h"

namespace rammer::sim {

namespace {

// What the trace says of one of its operators.
struct MeasuredOp {
  int32_t program = -1;
  int64_t rtasks = 0;
  bool twoPrograms = false;
};

}  // namespace

ir::Result<schedule::Plan> planOfMeasuredTrace(const Trace& measured, const ir::Graph& graph,
                                               const device::DeviceSpec& device, const schedule::PolicyOptions& options,
                                               MeasuredPlanForm form) {
  std::map<int32_t, MeasuredOp> seen;  // by the trace's op index
  for (const TaskEvent& e : measured.tasks) {
    MeasuredOp& m = seen[e.task.op];
    if (m.program >= 0 && m.program != e.program) m.twoPrograms = true;
    m.program = e.program;
    ++m.rtasks;
  }
  // Every rTask in the order it ran, not reordered by the critical path.
  schedule::PolicyOptions replay = options;
  replay.order = schedule::RTaskOrder::Policy;
  auto started = schedule::PlanBuilder::start("measured", graph, device, {}, replay);
  if (!started) return started.errors();
  schedule::PlanBuilder& b = *started;

  // Each measured operator's plan op, with the rKernel it ran.
  std::map<int32_t, int32_t> opOf;  // trace op index -> plan op
  for (const auto& [index, m] : seen) {
    const auto at = static_cast<size_t>(index);
    if (index < 0 || at >= measured.opNames.size() || at >= measured.kernelNames.size())
      return ir::makeError("the trace's op index " + std::to_string(index) + " has no name");
    const std::string& name = measured.opNames[at];
    const std::string& kernel = measured.kernelNames[at];
    if (m.twoPrograms) return ir::makeError("operator '" + name + "' ran in two programs", name);
    const auto op = b.dag().find(name);
    if (!op) return ir::makeError("operator '" + name + "' of the trace is not in the graph (other passes?)", name);
    const auto& candidates = b.candidates(*op);
    const int64_t rtasks = m.rtasks;  // a lambda may not capture a structured binding (clang 15)
    const auto found = std::find_if(candidates.begin(), candidates.end(), [&](const kernels::RKernel& k) {
      return k.name == kernel && k.numRTasks == rtasks;
    });
    if (found == candidates.end())
      return ir::makeError("operator '" + name + "' ran rKernel '" + kernel + "' as " + std::to_string(m.rtasks) +
                               " rTasks, which this build does not offer for it",
                           name);
    b.choose(*op, static_cast<size_t>(found - candidates.begin()), "measured", "as the measured run");
    opOf[index] = *op;
  }
  std::vector<bool> placed(b.dag().ops.size(), false);
  for (const auto& [index, op] : opOf) placed[static_cast<size_t>(op)] = true;
  for (size_t i = 0; i < b.dag().ops.size(); ++i)
    if (!b.dag().ops[i].isView && !placed[i])
      return ir::makeError("operator '" + b.dag().ops[i].name + "' has no rTask in the trace", b.dag().ops[i].name);

  // The programs in launch order, each rTask where and when it ran: the
  // start times order every producer before its consumers.
  std::vector<const TaskEvent*> byStart;
  for (const TaskEvent& e : measured.tasks) byStart.push_back(&e);
  std::stable_sort(byStart.begin(), byStart.end(), [](const TaskEvent* x, const TaskEvent* y) {
    return x->program != y->program ? x->program < y->program : x->startUs < y->startUs;
  });
  std::vector<schedule::ProgramDraft> drafts;
  for (const ProgramEvent& p : measured.programs) {
    schedule::ProgramDraft d;
    d.cutReason = "measured program " + std::to_string(p.program);
    // The shape it ran at is a fact of the run, not a choice to re-check.
    schedule::VDevice& v = d.layout;
    v.sms = device.sms;
    v.veusPerSM = p.veusPerSM;
    v.numVEUs = p.numVEUs;
    if (v.veusPerSM < 1 || v.numVEUs < 1)
      return ir::makeError("measured program " + std::to_string(p.program) + " has " + std::to_string(p.numVEUs) +
                           " vEUs at " + std::to_string(p.veusPerSM) + " per SM");
    std::vector<const TaskEvent*> events;
    std::vector<bool> inDraft(b.dag().ops.size(), false);
    for (const TaskEvent* e : byStart) {
      if (e->program != p.program) continue;
      const int32_t op = opOf.at(e->task.op);
      if (!inDraft[static_cast<size_t>(op)]) d.ops.push_back(op), inDraft[static_cast<size_t>(op)] = true;
      events.push_back(e);
    }
    // A RammerBase kernel launches one block per rTask of its one operator,
    // more than the SMs hold at once: the hardware starts each block when a
    // slot frees, so the plan gives each rTask the slot that freed first (by
    // its start). A persistent program wider than the device is no run.
    const int slots = v.veusPerSM * std::max(1, device.sms);
    const bool waves = v.numVEUs > slots;
    if (waves && d.ops.size() != 1)
      return ir::makeError("measured program " + std::to_string(p.program) + " has " + std::to_string(p.numVEUs) +
                           " vEUs at " + std::to_string(p.veusPerSM) + " per SM, more than " + device.id +
                           " holds, and more than one operator");
    if (waves) v.numVEUs = slots;
    std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> freeAt;
    for (int u = 0; waves && u < slots; ++u) freeAt.emplace(0.0, u);
    for (const TaskEvent* e : events) {
      int veu = e->veu;
      if (waves) {
        veu = freeAt.top().second;
        freeAt.pop();
        freeAt.emplace(e->endUs, veu);
      }
      d.placements.emplace_back(schedule::RTask{opOf.at(e->task.op), e->task.rtask}, veu);
    }
    for (int32_t op : d.ops) {
      const kernels::RKernel& k = b.kernel(op);
      v.threads = std::max(v.threads, k.threads());
      v.regs = std::max(v.regs, k.regsEstimate);
      v.sharedBytes = std::max(v.sharedBytes, k.sharedBytes);
    }
    v.summary = std::to_string(v.veusPerSM) + " vEUs/SM (measured)";
    if (!d.ops.empty()) drafts.push_back(std::move(d));
  }
  std::vector<schedule::VDevice> shapes;
  for (schedule::ProgramDraft& d : drafts) {
    shapes.push_back(d.layout);
    // A dynamic program's operators in a topological order (the DAG's).
    if (form == MeasuredPlanForm::Dynamic) std::sort(d.ops.begin(), d.ops.end());
  }
  auto plan = form == MeasuredPlanForm::Dynamic ? std::move(b).finishDynamic(std::move(drafts))
                                                : std::move(b).finish(std::move(drafts));
  if (!plan) return plan;
  // The rKernels ran at their program's shape, so within its register
  // budget: this build's estimates (or another compile's counts) must not
  // say otherwise, or the plan would be refused as not co-resident.
  for (size_t p = 0; p < plan->programs.size(); ++p) {
    const schedule::VDevice& v = shapes[p];
    const int budget = schedule::registerBudget(device, v.threads, v.sharedBytes, v.veusPerSM);
    if (budget <= 0) continue;
    auto clamp = [&](int32_t op) {
      kernels::RKernel& k = plan->ops[static_cast<size_t>(op)].kernel;
      k.regsEstimate = std::min(k.regsEstimate, budget);
    };
    if (const auto& dynamic = plan->programs[p].dynamic) {
      for (const schedule::DynamicOp& d : dynamic->ops) clamp(d.op);
      continue;
    }
    const schedule::RProgram& prog = plan->programs[p].program;
    for (int u = 0; u < prog.numVEUs(); ++u)
      for (const schedule::Instr& in : prog.stream(u))
        if (const auto* e = std::get_if<schedule::Exec>(&in)) clamp(e->task.op);
  }
  return plan;
}

}  // namespace rammer::sim

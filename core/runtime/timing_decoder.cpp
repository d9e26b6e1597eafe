#include "core/runtime/timing_decoder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "core/sim/simulator.h"

namespace rammer::runtime {

namespace {

using Key = std::tuple<int32_t, int32_t, int32_t>;  // program, vEU, order

// Barrier waits from the gaps around each barrier-rTask of one program.
void deriveBarriers(int32_t program, const schedule::RProgram& prog, double programStartUs,
                    const std::map<Key, const sim::TaskEvent*>& at, std::vector<sim::BarrierEvent>& out) {
  for (int veu = 0; veu < prog.numVEUs(); ++veu) {
    const auto& stream = prog.stream(veu);
    for (size_t order = 0; order < stream.size(); ++order) {
      const auto* barrier = std::get_if<schedule::Barrier>(&stream[order]);
      if (!barrier) continue;
      const sim::TaskEvent* before = nullptr;
      for (size_t k = order; k-- > 0 && !before;)
        if (auto it = at.find({program, veu, static_cast<int32_t>(k)}); it != at.end()) before = it->second;
      const sim::TaskEvent* after = nullptr;
      for (size_t k = order + 1; k < stream.size() && !after; ++k)
        if (auto it = at.find({program, veu, static_cast<int32_t>(k)}); it != at.end()) after = it->second;
      if (!after) continue;  // nothing measured after it: the wait has no end
      sim::BarrierEvent b;
      b.program = program;
      b.veu = veu;
      b.order = static_cast<int32_t>(order);
      b.sm = after->sm;
      b.startUs = before ? before->endUs : programStartUs;
      b.endUs = std::max(b.startUs, after->startUs);
      double lastEnd = -std::numeric_limits<double>::infinity();
      for (const schedule::Slot& s : barrier->waits) {
        auto it = at.find({program, s.veu, s.order});
        const double end = it != at.end() ? it->second->endUs : -std::numeric_limits<double>::infinity();
        if (b.lastSlot.veu < 0 || end > lastEnd) {
          b.lastSlot = s;
          lastEnd = end;
        }
      }
      out.push_back(b);
    }
  }
}

}  // namespace

ir::Result<sim::Trace> decodeTiming(const schedule::Plan& plan, const codegen::GeneratedProgram& program,
                                    std::span<const uint64_t> words, const TimingSource& source) {
  if (words.size() < static_cast<size_t>(program.numTimedEvents) * 3)
    return ir::makeError("the timing buffer holds " + std::to_string(words.size()) + " words, the program records " +
                         std::to_string(program.numTimedEvents) + " rTasks x 3");
  sim::Trace trace =
      sim::traceOf(plan, "measured: " + (source.deviceName.empty() ? plan.device.name : source.deviceName) + " " + source.clock,
                   true, source.sms > 0 ? source.sms : plan.device.sms);

  struct Raw {
    sim::TaskEvent event;
    uint64_t start, end;
  };
  std::vector<Raw> raw;
  uint64_t t0 = std::numeric_limits<uint64_t>::max();
  size_t unrecorded = 0;
  for (const codegen::KernelLaunch& l : program.launches) {
    if (l.program < 0 || static_cast<size_t>(l.program) >= plan.programs.size())
      return ir::makeError("launch of kernel " + l.kernel + " names program " + std::to_string(l.program) +
                           ", which the plan does not have");
    for (size_t i = 0; i < l.timedTasks.size(); ++i) {
      const uint64_t at = (static_cast<uint64_t>(l.timingOffset) + i) * 3;
      if (at + 3 > words.size())
        return ir::makeError("rTask timing of kernel " + l.kernel + " lies past the end of the timing buffer");
      const uint64_t start = words[at], end = words[at + 1];
      if (start == 0 || end < start) {
        ++unrecorded;
        continue;
      }
      const codegen::TimedTask& tt = l.timedTasks[i];
      sim::TaskEvent e;
      e.task = tt.task;
      e.program = l.program;
      e.veu = tt.veu;
      e.order = tt.order;
      e.sm = static_cast<int32_t>(words[at + 2] & 0xffffffffu);
      if (tt.veu < 0) e.veu = static_cast<int32_t>(words[at + 2] >> 32);  // a dynamic program: the kernel says
      raw.push_back({e, start, end});
      t0 = std::min(t0, start);
    }
  }
  for (Raw& r : raw) {
    r.event.startUs = static_cast<double>(r.start - t0) / 1000.0;
    r.event.endUs = static_cast<double>(r.end - t0) / 1000.0;
    trace.tasks.push_back(r.event);
  }
  std::sort(trace.tasks.begin(), trace.tasks.end(), [](const sim::TaskEvent& a, const sim::TaskEvent& b) {
    return std::tie(a.program, a.veu, a.startUs) < std::tie(b.program, b.veu, b.startUs);
  });

  // A dynamic program's rTasks take their order on a vEU from when they ran.
  for (size_t i = 0; i < trace.tasks.size(); ++i) {
    sim::TaskEvent& e = trace.tasks[i];
    if (e.order >= 0) continue;
    const sim::TaskEvent* before = i > 0 ? &trace.tasks[i - 1] : nullptr;
    e.order = before && before->program == e.program && before->veu == e.veu ? before->order + 1 : 0;
  }

  std::map<Key, const sim::TaskEvent*> at;
  std::map<int32_t, sim::ProgramEvent> programs;
  for (const sim::TaskEvent& e : trace.tasks) {
    at[{e.program, e.veu, e.order}] = &e;
    auto [it, fresh] = programs.try_emplace(e.program);
    sim::ProgramEvent& p = it->second;
    p.startUs = fresh ? e.startUs : std::min(p.startUs, e.startUs);
    p.endUs = fresh ? e.endUs : std::max(p.endUs, e.endUs);
    trace.totalUs = std::max(trace.totalUs, e.endUs);
  }
  for (const codegen::KernelLaunch& l : program.launches) {
    sim::ProgramEvent p = programs.count(l.program) ? programs[l.program] : sim::ProgramEvent{};
    p.program = l.program;
    p.numVEUs = l.gridBlocks;
    p.veusPerSM = plan.programs[static_cast<size_t>(l.program)].veusPerSM;
    trace.programs.push_back(p);
    deriveBarriers(l.program, plan.programs[static_cast<size_t>(l.program)].program, p.startUs, at, trace.barriers);
  }
  std::sort(trace.barriers.begin(), trace.barriers.end(), [](const sim::BarrierEvent& a, const sim::BarrierEvent& b) {
    return std::tie(a.program, a.veu, a.startUs) < std::tie(b.program, b.veu, b.startUs);
  });
  trace.smEfficiency = sim::computeSmEfficiency(trace.tasks, trace.sms, trace.totalUs);
  trace.metrics["unrecorded_rtasks"] = static_cast<double>(unrecorded);
  return trace;
}

}  // namespace rammer::runtime

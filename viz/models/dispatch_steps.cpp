#include "viz/models/dispatch_steps.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace rammer::viz {

namespace {

std::string us(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f us", v);
  return buf;
}

// What the trace shows of one operator of a dynamic program.
struct Dispatched {
  int32_t program = -1;
  int32_t op = -1;
  int64_t rtasks = 0;
  double firstTake = std::numeric_limits<double>::infinity();  // its first rTask's start
  double lastTake = -std::numeric_limits<double>::infinity();  // its last rTask's start
  double lastEnd = -std::numeric_limits<double>::infinity();
  int32_t lastVEU = -1;  // the vEU whose rTask ended last
  std::set<int32_t> veus;
  double entered = 0;     // when its gate opened: its producers' last end, or the program's start
  int32_t openedBy = -1;  // the producer whose last rTask opened the gate (-1: queued at launch)
};

}  // namespace

std::vector<TeachingStep> dispatchSteps(const schedule::Plan& plan, const sim::Trace& trace) {
  std::map<int32_t, Dispatched> byOp;
  for (const sim::TaskEvent& e : trace.tasks) {
    if (e.program < 0 || static_cast<size_t>(e.program) >= plan.programs.size() ||
        !plan.programs[static_cast<size_t>(e.program)].dynamic)
      continue;
    Dispatched& d = byOp[e.task.op];
    d.program = e.program;
    d.op = e.task.op;
    ++d.rtasks;
    d.firstTake = std::min(d.firstTake, e.startUs);
    d.lastTake = std::max(d.lastTake, e.startUs);
    if (e.endUs > d.lastEnd) d.lastEnd = e.endUs, d.lastVEU = e.veu;
    d.veus.insert(e.veu);
  }
  std::map<int32_t, double> programStart;
  for (const sim::ProgramEvent& p : trace.programs) programStart[p.program] = p.startUs;
  for (auto& [op, d] : byOp) {
    d.entered = programStart.count(d.program) ? programStart[d.program] : 0;
    for (int32_t p : plan.ops[static_cast<size_t>(op)].producers)
      if (auto it = byOp.find(p);
          it != byOp.end() && it->second.program == d.program && it->second.lastEnd >= d.entered)
        d.entered = it->second.lastEnd, d.openedBy = p;
  }
  std::vector<const Dispatched*> order;
  for (const auto& [op, d] : byOp) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [](const Dispatched* a, const Dispatched* b) {
    return a->program != b->program ? a->program < b->program : a->firstTake < b->firstTake;
  });

  const auto take = [&]() -> double {
    const auto n = trace.metrics.find("dispatches"), t = trace.metrics.find("dispatch_veu_us");
    return n != trace.metrics.end() && t != trace.metrics.end() && n->second > 0 ? t->second / n->second : -1;
  }();
  std::vector<TeachingStep> steps;
  TeachingStep intro;
  intro.title = "A dynamic run: " + std::to_string(order.size()) + " operators dispatched";
  intro.notes = plan.decisions;
  intro.explanation =
      "The " + plan.policy +
      " plan fixes each operator's rKernel and a priority, not which vEU runs what. In the run, "
      "a vEU that is free takes the next rTask from a ready queue: an operator enters the queue when the last rTask of "
      "its producers in the rProgram finishes (its gate), and leaves it when every one of its rTasks has been taken. "
      "The next steps follow the operators in the order their first rTask was taken, in this trace (" +
      trace.source + ").";
  int shards = 1;  // the most claim counters an operator of the plan has
  for (const schedule::ProgramInfo& p : plan.programs)
    if (p.dynamic) shards = std::max(shards, static_cast<int>(p.dynamic->claimShards));
  const std::string claim = shards == 1 ? "the atomic claim of the next rTask that every vEU contends for"
                                        : "the atomic claim of the next rTask on one of " + std::to_string(shards) +
                                              " claim shards (a vEU claims from its own and steals from the others "
                                              "when it is empty)";
  if (take >= 0)
    intro.explanation += "\n\nEach take costs a vEU " + us(take) +
                         " (the dispatch: the finished rTask's arrivals at its consumers' gates, " + claim +
                         ", two fences and two block barriers; 3.3 us measured on an H100 with one claim counter), " +
                         us(take * static_cast<double>(trace.tasks.size())) + " of vEU time over the run.";
  if (!intro.notes.empty()) {
    intro.explanation += "\n\nThe policy's log:";
    for (const std::string& n : intro.notes) intro.explanation += "\n  " + n;
  }
  steps.push_back(intro);

  for (const Dispatched* d : order) {
    const schedule::PlannedOp& op = plan.ops[static_cast<size_t>(d->op)];
    TeachingStep s;
    s.title = "t = " + us(d->firstTake) + ": '" + op.name + "' taken from the queue";
    s.ops = {d->op};
    s.programs = {d->program};
    s.veus = static_cast<int>(d->veus.size());
    s.rtasks = d->rtasks;
    s.choices.push_back(teachingChoice(plan, d->op));
    std::string e =
        "'" + op.name + "' entered the ready queue of rProgram " + std::to_string(d->program) + " at " + us(d->entered);
    if (d->openedBy >= 0) {
      const Dispatched& by = byOp.at(d->openedBy);
      e += ", when the last rTask of '" + plan.ops[static_cast<size_t>(d->openedBy)].name + "' finished on vEU " +
           std::to_string(by.lastVEU) + " and opened its gate.";
    } else {
      e += ": it has no producer in this rProgram, so it was queued at launch.";
    }
    // Operators that entered before it and still had rTasks to hand out.
    int ahead = 0;
    for (const auto& [other, o] : byOp)
      if (other != d->op && o.program == d->program && o.entered <= d->entered && o.lastTake > d->entered) ++ahead;
    if (const schedule::DynamicProgram* dp = plan.programs[static_cast<size_t>(d->program)].dynamic.get())
      for (const schedule::DynamicOp& x : dp->ops)
        if (x.op == d->op)
          e += "\n\nIts priority is " + us(x.priority) +
               " (the longest predicted path from its start to the end of the "
               "rProgram); its gate counted " +
               std::to_string(x.gate) + " producer rTasks.";
    e += ahead == 0 ? " Nothing was ahead of it in the queue."
                    : " " + std::to_string(ahead) + (ahead == 1 ? " operator was" : " operators were") +
                          " ahead of it in the queue (first in, first out), still handing out rTasks.";
    e += "\n\n" + std::to_string(s.veus) + (s.veus == 1 ? " vEU" : " vEUs") + " took its " + std::to_string(d->rtasks) +
         " rTasks: the first " + us(d->firstTake - d->entered) + " after it entered, the last at " + us(d->lastTake) +
         "; its last rTask finished at " + us(d->lastEnd) + ".";
    e += explainChoices(s.choices);
    s.explanation = std::move(e);
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace rammer::viz

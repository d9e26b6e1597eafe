#include "viz/models/teaching_steps.h"

#include "viz/models/dispatch_steps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>
#include <variant>

namespace rammer::viz {

namespace {

// "2.57", "24.7", "486": three significant digits or so.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f", v);
  return buf;
}

}  // namespace

TeachingChoice teachingChoice(const schedule::Plan& plan, int32_t op) {
  const schedule::PlannedOp& p = plan.ops.at(static_cast<size_t>(op));
  TeachingChoice c;
  c.op = op;
  c.name = p.name;
  c.kernel = p.kernel.name;
  c.rule = p.kernelRule;
  c.options = p.options;
  c.fastest = p.fastestOption;
  c.mostEfficient = p.mostEfficientOption;
  return c;
}

std::string explainChoices(const std::vector<TeachingChoice>& choices) {
  std::string e;
  for (const TeachingChoice& c : choices) {
    e += "\n\n'" + c.name + "' runs as rKernel " + c.kernel + " (" + c.rule + ").";
    if (c.options.size() > 1) {
      e += " It weighed:";
      for (size_t i = 0; i < c.options.size(); ++i) {
        const schedule::KernelOption& o = c.options[i];
        e += "\n  - " + o.kernel + ": " + std::to_string(o.rtasks) + " rTasks";
        e += o.fits ? ", " + number(o.opUs) + " us spread over every vEU, " + number(o.smUs) + " SM-us of work"
                    : ", does not fit on an SM";
        if (static_cast<int>(i) == c.fastest) e += " (fastest)";
        if (static_cast<int>(i) == c.mostEfficient) e += " (most efficient)";
      }
      if (c.fastest >= 0 && c.fastest == c.mostEfficient)
        e += "\n  The fastest is also the most efficient, so there is nothing to trade.";
      else if (c.rule == "fastest")
        e += "\n  The fastest wins: the step's rTasks fit the vEUs, so finishing sooner matters more than SM-time.";
      else if (c.rule == "most efficient")
        e += "\n  The most efficient wins: with the fastest rKernels the step has more rTasks than vEUs, so "
             "the least SM-time finishes first.";
    }
  }
  return e;
}

namespace {

std::string explain(const TeachingStep& s) {
  std::string e;
  if (s.ops.empty()) {
    e = s.title + ": no operator is placed in this step; the policy says why the plan looks as it does.";
  } else {
    e = s.title + " places " + std::to_string(s.ops.size()) + (s.ops.size() == 1 ? " operator" : " operators") + ", " +
        std::to_string(s.rtasks) + " rTasks in all.";
  }
  e += explainChoices(s.choices);
  if (!s.programs.empty() && s.atRunTime) {
    e += "\n\nIts rTasks go to the ready queue: any of the " + std::to_string(s.veus) +
         " vEUs takes the next one when it is free, at run time (a trace of the run explains its dispatches).";
  } else if (!s.programs.empty()) {
    e += "\n\nIts rTasks run on " + std::to_string(s.veus) + " vEUs of rProgram";
    for (size_t i = 0; i < s.programs.size(); ++i) e += (i ? ", " : " ") + std::to_string(s.programs[i]);
    e += s.barriers == 0 ? "; no barrier-rTask holds them back."
                         : "; " + std::to_string(s.barriers) + " barrier-rTasks make them wait for their producers.";
  }
  if (!s.notes.empty()) {
    e += "\n\nThe policy's log:";
    for (const std::string& n : s.notes) e += "\n  " + n;
  }
  return e;
}

}  // namespace

std::vector<int> stepOfOps(const schedule::Plan& plan, const std::vector<TeachingStep>& steps) {
  std::vector<int> stepOf(plan.ops.size(), -1);
  for (size_t s = 0; s < steps.size(); ++s)
    for (int32_t op : steps[s].ops)
      if (op >= 0 && static_cast<size_t>(op) < stepOf.size() && stepOf[static_cast<size_t>(op)] < 0)
        stepOf[static_cast<size_t>(op)] = static_cast<int>(s);
  return stepOf;
}

std::vector<TeachingStep> teachingSteps(const schedule::Plan& plan, const sim::Trace* trace) {
  const bool dynamic = std::any_of(plan.programs.begin(), plan.programs.end(),
                                   [](const schedule::ProgramInfo& p) { return p.dynamic != nullptr; });
  if (dynamic && trace) return dispatchSteps(plan, *trace);
  std::vector<TeachingStep> steps;
  const auto step = [&](std::string title, std::vector<int32_t> ops, std::vector<std::string> notes) {
    TeachingStep s;
    s.title = std::move(title);
    s.ops = std::move(ops);
    s.notes = std::move(notes);
    steps.push_back(std::move(s));
  };
  for (const schedule::PlanStep& ps : plan.steps) {
    const auto first = plan.decisions.begin() + static_cast<std::ptrdiff_t>(ps.firstDecision);
    step(ps.title, ps.ops, {first, first + static_cast<std::ptrdiff_t>(ps.decisions)});
  }
  if (steps.empty())  // no log: one step per rProgram, its operators in plan order
    for (size_t p = 0; p < plan.programs.size(); ++p)
      step("rProgram " + std::to_string(p), schedule::opsOfProgram(plan, p), {plan.programs[p].cutReason});
  const std::vector<int> stepOf = stepOfOps(plan, steps);
  std::vector<std::set<std::pair<int, int>>> veus(steps.size());  // (program, vEU)
  std::vector<std::set<int>> programs(steps.size());
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const schedule::RProgram& prog = plan.programs[p].program;
    if (const schedule::DynamicProgram* dp = plan.programs[p].dynamic.get())
      for (const schedule::DynamicOp& d : dp->ops) {
        const int s = d.op >= 0 && static_cast<size_t>(d.op) < stepOf.size() ? stepOf[static_cast<size_t>(d.op)] : -1;
        if (s < 0) continue;
        steps[static_cast<size_t>(s)].rtasks += d.rtasks;
        steps[static_cast<size_t>(s)].atRunTime = true;
        for (int v = 0; v < prog.numVEUs(); ++v) veus[static_cast<size_t>(s)].emplace(static_cast<int>(p), v);
        programs[static_cast<size_t>(s)].insert(static_cast<int>(p));
      }
    for (int v = 0; v < prog.numVEUs(); ++v) {
      int pendingBarriers = 0;
      for (const schedule::Instr& in : prog.stream(v)) {
        if (std::holds_alternative<schedule::Barrier>(in)) {
          ++pendingBarriers;
          continue;
        }
        const int32_t op = std::get<schedule::Exec>(in).task.op;
        const int s = op >= 0 && static_cast<size_t>(op) < stepOf.size() ? stepOf[static_cast<size_t>(op)] : -1;
        if (s < 0) continue;
        TeachingStep& st = steps[static_cast<size_t>(s)];
        st.barriers += pendingBarriers;
        pendingBarriers = 0;
        ++st.rtasks;
        veus[static_cast<size_t>(s)].emplace(static_cast<int>(p), v);
        programs[static_cast<size_t>(s)].insert(static_cast<int>(p));
      }
    }
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    TeachingStep& st = steps[s];
    st.veus = static_cast<int>(veus[s].size());
    st.programs.assign(programs[s].begin(), programs[s].end());
    for (int32_t op : st.ops)
      if (op >= 0 && static_cast<size_t>(op) < plan.ops.size() && !plan.ops[static_cast<size_t>(op)].isView)
        st.choices.push_back(teachingChoice(plan, op));
    st.explanation = explain(st);
  }
  return steps;
}

sim::Trace traceUpTo(const sim::Trace& trace, const std::vector<int>& stepOfOp, int last) {
  sim::Trace out = trace;
  out.tasks.clear();
  out.barriers.clear();
  const auto built = [&](int32_t op) {
    return op >= 0 && static_cast<size_t>(op) < stepOfOp.size() && stepOfOp[static_cast<size_t>(op)] >= 0 &&
           stepOfOp[static_cast<size_t>(op)] <= last;
  };
  // A barrier belongs to the rTask that follows it on its vEU.
  std::map<std::tuple<int, int, int>, bool> kept;  // (program, vEU, order) of every rTask: built yet?
  for (const sim::TaskEvent& t : trace.tasks) {
    kept[{t.program, t.veu, t.order}] = built(t.task.op);
    if (built(t.task.op)) out.tasks.push_back(t);
  }
  for (const sim::BarrierEvent& b : trace.barriers) {
    auto next = kept.upper_bound({b.program, b.veu, b.order});
    if (next != kept.end() && std::get<0>(next->first) == b.program && std::get<1>(next->first) == b.veu && next->second)
      out.barriers.push_back(b);
  }
  return out;
}

}  // namespace rammer::viz

#include "core/exec/emulator_preflight.h"

#include <string>
#include <variant>

namespace rammer::exec {

namespace {

std::string where(size_t program, size_t veu, size_t order) {
  return "program " + std::to_string(program) + " vEU " + std::to_string(veu) + " order " + std::to_string(order);
}

std::string noEmulation(const schedule::PlannedOp& op) {
  return "rKernel " + op.kernel.name + " of '" + op.name +
         "' has neither a CPU function nor the elements its rTasks write, to emulate it with";
}

}  // namespace

std::vector<ir::Diagnostic> preflightPlan(const schedule::Plan& plan, size_t maxErrors) {
  std::vector<ir::Diagnostic> errs;
  auto fail = [&](std::string message, std::string node = {}) {
    if (errs.size() < maxErrors) errs.push_back(ir::makeError(std::move(message), std::move(node)));
  };
  // runs[op][rtask]: how often the plan runs it; firstAt: where, for messages.
  std::vector<std::vector<uint8_t>> runs(plan.ops.size());
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (!plan.ops[i].isView && plan.ops[i].kernel.numRTasks > 0)
      runs[i].assign(static_cast<size_t>(plan.ops[i].kernel.numRTasks), 0);

  for (size_t p = 0; p < plan.programs.size(); ++p) {
    if (plan.programs[p].dynamic) {
      // Its gates and queue as the validator proves them; then every rTask
      // of each operator runs once.
      for (std::string& e : schedule::checkDynamicProgram(plan, p)) fail(std::move(e));
      for (const schedule::DynamicOp& d : plan.programs[p].dynamic->ops) {
        if (d.op < 0 || static_cast<size_t>(d.op) >= plan.ops.size() || plan.ops[static_cast<size_t>(d.op)].isView)
          continue;  // named by checkDynamicProgram
        const schedule::PlannedOp& op = plan.ops[static_cast<size_t>(d.op)];
        if (!op.kernel.cpu && !op.kernel.written) fail(noEmulation(op), op.name);
        for (uint8_t& n : runs[static_cast<size_t>(d.op)])
          if (n++ > 0) {
            n = 2;
            fail("'" + op.name + "' runs in more than one program (again in dynamic program " + std::to_string(p) + ")",
                 op.name);
            break;
          }
      }
      continue;
    }
    const schedule::RProgram& prog = plan.programs[p].program;
    const size_t veus = static_cast<size_t>(prog.numVEUs());
    for (size_t v = 0; v < veus; ++v) {
      const auto& stream = prog.stream(static_cast<int>(v));
      for (size_t o = 0; o < stream.size(); ++o) {
        if (const auto* e = std::get_if<schedule::Exec>(&stream[o])) {
          const schedule::RTask t = e->task;
          if (t.op < 0 || static_cast<size_t>(t.op) >= plan.ops.size()) {
            fail(where(p, v, o) + " runs operator " + std::to_string(t.op) + ", but the plan has " +
                 std::to_string(plan.ops.size()) + " operators");
            continue;
          }
          const schedule::PlannedOp& op = plan.ops[static_cast<size_t>(t.op)];
          const std::string task = op.name + "[" + std::to_string(t.rtask) + "]";
          if (op.isView) {
            fail(where(p, v, o) + " runs " + task + ", but '" + op.name + "' is a view and has no rTasks", op.name);
          } else if (t.rtask < 0 || t.rtask >= op.kernel.numRTasks) {
            fail(where(p, v, o) + " runs " + task + ", but rKernel " + op.kernel.name + " has " +
                     std::to_string(op.kernel.numRTasks) + " rTasks",
                 op.name);
          } else if (!op.kernel.cpu && !op.kernel.written) {
            fail(noEmulation(op), op.name);
          } else if (uint8_t& n = runs[static_cast<size_t>(t.op)][static_cast<size_t>(t.rtask)]; n++ > 0) {
            n = 2;  // saturate: report every repeat, never wrap
            fail(task + " runs more than once (again at " + where(p, v, o) + ")", op.name);
          }
          continue;
        }
        for (const schedule::Slot& s : std::get<schedule::Barrier>(stream[o]).waits) {
          const std::string head = "deadlock: the barrier at " + where(p, v, o) + " waits for vEU " +
                                   std::to_string(s.veu) + " order " + std::to_string(s.order);
          if (s.veu < 0 || static_cast<size_t>(s.veu) >= veus) {
            fail(head + ", which does not exist (the program has " + std::to_string(veus) + " vEUs)");
          } else if (s.order < 0 || static_cast<size_t>(s.order) >= prog.stream(s.veu).size()) {
            fail(head + ", which does not exist (vEU " + std::to_string(s.veu) + " has " +
                 std::to_string(prog.stream(s.veu).size()) + " instructions)");
          } else if (static_cast<size_t>(s.veu) == v && static_cast<size_t>(s.order) >= o) {
            fail(head + ", which is itself or comes after it on the same vEU");
          }
        }
      }
    }
  }
  for (size_t i = 0; i < runs.size(); ++i)
    for (size_t r = 0; r < runs[i].size(); ++r)
      if (runs[i][r] == 0) {
        fail(plan.ops[i].name + "[" + std::to_string(r) + "] never runs: no program places it", plan.ops[i].name);
        break;  // one message per operator is enough
      }
  return errs;
}

}  // namespace rammer::exec

#include "core/schedule/plan.h"

#include <set>

namespace rammer::schedule {

size_t Plan::numRTasks() const {
  size_t n = 0;
  for (const auto& p : programs) n += p.numRTasks();
  return n;
}

std::vector<int32_t> opsOfProgram(const Plan& plan, size_t program) {
  const ProgramInfo& info = plan.programs.at(program);
  std::set<int32_t> ops;
  if (info.dynamic)
    for (const DynamicOp& d : info.dynamic->ops) ops.insert(d.op);
  for (const auto& stream : info.program.streams())
    for (const Instr& ins : stream)
      if (const auto* e = std::get_if<Exec>(&ins)) ops.insert(e->task.op);
  std::vector<int32_t> out;
  for (int32_t op : ops)
    if (op >= 0 && static_cast<size_t>(op) < plan.ops.size()) out.push_back(op);
  return out;
}

}  // namespace rammer::schedule

#include "profiler/profile_recorder.h"

#include <algorithm>
#include <map>
#include <set>

namespace rammer::profiler {

sim::ProfileDB recordTaskTimes(const schedule::Plan& plan, const sim::Trace& measured,
                               const std::vector<sim::TimeStats>& kernelTimeByProgram, const std::string& gpuName) {
  struct Samples {
    int32_t op = -1;  // the first operator seen with this key
    int veusPerSM = 0;
    std::vector<double> us;
    std::set<int32_t> programs;
  };
  std::map<std::pair<std::string, int>, Samples> byKey;
  std::map<int32_t, std::set<int32_t>> opsInProgram;
  for (const sim::TaskEvent& t : measured.tasks) {
    const int32_t op = t.task.op;
    if (op < 0 || static_cast<size_t>(op) >= plan.ops.size() || t.program < 0 ||
        static_cast<size_t>(t.program) >= plan.programs.size() || t.endUs < t.startUs)
      continue;
    opsInProgram[t.program].insert(op);
    const int veus = std::max(1, plan.programs[static_cast<size_t>(t.program)].veusPerSM);
    Samples& s = byKey[{sim::profileKey(plan.ops[static_cast<size_t>(op)].kernel), veus}];
    if (s.op < 0) s.op = op;
    s.veusPerSM = veus;
    s.us.push_back(t.endUs - t.startUs);
    s.programs.insert(t.program);
  }

  sim::ProfileDB db(plan.device.id, gpuName);
  for (auto& [key, s] : byKey) {
    const schedule::PlannedOp& op = plan.ops[static_cast<size_t>(s.op)];
    sim::ProfileEntry e;
    e.key = key.first;
    e.kernelName = op.kernel.name;
    e.opType = op.opType;
    e.veusPerSM = s.veusPerSM;
    e.numRTasks = op.kernel.numRTasks;
    e.taskTime = sim::summarizeTimes(std::move(s.us));
    for (int32_t p : s.programs) {
      const bool alone = opsInProgram[p].size() == 1;
      if (alone && static_cast<size_t>(p) < kernelTimeByProgram.size())
        e.kernelTime = sim::mergeTimes(e.kernelTime, kernelTimeByProgram[static_cast<size_t>(p)]);
    }
    db.add(e);
  }
  return db;
}

}  // namespace rammer::profiler

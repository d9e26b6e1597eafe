#include "core/sim/op_time_error.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace rammer::sim {

namespace {

struct OpTimes {
  std::string kernel;
  size_t rtasks = 0;
  double totalUs = 0;
};

// Per op name: its rKernel, rTasks and summed rTask time.
std::map<std::string, OpTimes> timesByName(const Trace& t) {
  std::map<std::string, OpTimes> out;
  for (const TaskEvent& e : t.tasks) {
    const auto op = static_cast<size_t>(e.task.op);
    if (op >= t.opNames.size() || t.opNames[op].empty()) continue;
    OpTimes& o = out[t.opNames[op]];
    if (o.rtasks == 0 && op < t.kernelNames.size()) o.kernel = t.kernelNames[op];
    ++o.rtasks;
    o.totalUs += e.endUs - e.startUs;
  }
  return out;
}

}  // namespace

OpTimeComparison compareOpTimes(const Trace& predicted, const Trace& measured) {
  const auto p = timesByName(predicted), m = timesByName(measured);
  OpTimeComparison c;
  for (const auto& [name, pt] : p) {
    auto it = m.find(name);
    if (it == m.end()) {
      ++c.onlyPredicted;
      continue;
    }
    const OpTimes& mt = it->second;
    c.ops.push_back({name, pt.kernel, mt.kernel, pt.rtasks, mt.rtasks, pt.totalUs / static_cast<double>(pt.rtasks),
                     mt.totalUs / static_cast<double>(mt.rtasks)});
  }
  for (const auto& [name, mt] : m) c.onlyMeasured += p.count(name) ? 0 : 1;
  auto distance = [](const OpTimeError& e) {
    return e.predictedUs > 0 && e.measuredUs > 0 ? std::fabs(std::log(e.predictedUs / e.measuredUs)) : INFINITY;
  };
  std::stable_sort(c.ops.begin(), c.ops.end(), [&](const OpTimeError& a, const OpTimeError& b) {
    if (a.sameKernel() != b.sameKernel()) return a.sameKernel();
    return distance(a) > distance(b);
  });
  return c;
}

}  // namespace rammer::sim

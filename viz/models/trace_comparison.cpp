#include "viz/models/trace_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace rammer::viz {

namespace {

// Task indices sorted by RTask, ties by index. Sorting (ref, index) pairs
// beats sorting indices through the events: no indirection per compare.
std::vector<int32_t> byTaskRef(const std::vector<sim::TaskEvent>& tasks) {
  std::vector<std::pair<schedule::RTask, int32_t>> keyed;
  keyed.reserve(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) keyed.emplace_back(tasks[i].task, static_cast<int32_t>(i));
  std::sort(keyed.begin(), keyed.end());
  std::vector<int32_t> order;
  order.reserve(keyed.size());
  for (const auto& k : keyed) order.push_back(k.second);
  return order;
}

// Splits `order` (sorted by RTask) into unique refs and duplicated ones.
void dropDuplicates(const std::vector<sim::TaskEvent>& tasks, std::vector<int32_t>& order,
                    std::vector<int32_t>& duplicates) {
  std::vector<int32_t> unique;
  unique.reserve(order.size());
  for (size_t k = 0; k < order.size();) {
    size_t e = k + 1;
    while (e < order.size() && tasks[static_cast<size_t>(order[e])].task == tasks[static_cast<size_t>(order[k])].task) ++e;
    if (e - k == 1) {
      unique.push_back(order[k]);
    } else {
      duplicates.insert(duplicates.end(), order.begin() + static_cast<ptrdiff_t>(k), order.begin() + static_cast<ptrdiff_t>(e));
    }
    k = e;
  }
  order = std::move(unique);
}

}  // namespace

TraceComparison compareTraces(const sim::Trace& predicted, const sim::Trace& measured) {
  TraceComparison c;
  c.predictedTotalUs = predicted.totalUs;
  c.measuredTotalUs = measured.totalUs;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  c.slipOfPredicted.assign(predicted.tasks.size(), nan);
  c.slipOfMeasured.assign(measured.tasks.size(), nan);

  const size_t commonOps = std::min(predicted.opNames.size(), measured.opNames.size());
  int mismatched = 0;
  for (size_t op = 0; op < commonOps; ++op) {
    if (predicted.opNames[op] != measured.opNames[op] && ++mismatched <= 3) {
      c.warnings.push_back("op " + std::to_string(op) + " is '" + predicted.opNames[op] + "' in the prediction but '" +
                           measured.opNames[op] + "' in the measurement: were both traces made from the same plan?");
    }
  }
  if (mismatched > 3) c.warnings.push_back(std::to_string(mismatched - 3) + " more ops have different names");

  std::vector<int32_t> p = byTaskRef(predicted.tasks);
  std::vector<int32_t> m = byTaskRef(measured.tasks);
  std::vector<int32_t> pDup;
  std::vector<int32_t> mDup;
  dropDuplicates(predicted.tasks, p, pDup);
  dropDuplicates(measured.tasks, m, mDup);
  if (!pDup.empty()) c.warnings.push_back(std::to_string(pDup.size()) + " predicted rTask events share a RTask");
  if (!mDup.empty()) c.warnings.push_back(std::to_string(mDup.size()) + " measured rTask events share a RTask");
  c.onlyPredicted = pDup;
  c.onlyMeasured = mDup;

  double sum = 0;
  double sumAbs = 0;
  size_t i = 0;
  size_t j = 0;
  while (i < p.size() || j < m.size()) {
    const sim::TaskEvent* pe = i < p.size() ? &predicted.tasks[static_cast<size_t>(p[i])] : nullptr;
    const sim::TaskEvent* me = j < m.size() ? &measured.tasks[static_cast<size_t>(m[j])] : nullptr;
    if (pe && (!me || pe->task < me->task)) {
      c.onlyPredicted.push_back(p[i++]);
    } else if (me && (!pe || me->task < pe->task)) {
      c.onlyMeasured.push_back(m[j++]);
    } else {
      const double slip = me->startUs - pe->startUs;
      c.matched.push_back({pe->task, p[i], m[j], slip, (me->endUs - me->startUs) - (pe->endUs - pe->startUs)});
      c.slipOfPredicted[static_cast<size_t>(p[i])] = slip;
      c.slipOfMeasured[static_cast<size_t>(m[j])] = slip;
      sum += slip;
      sumAbs += std::fabs(slip);
      c.maxAbsSlipUs = std::max(c.maxAbsSlipUs, std::fabs(slip));
      ++i;
      ++j;
    }
  }
  std::sort(c.onlyPredicted.begin(), c.onlyPredicted.end());
  std::sort(c.onlyMeasured.begin(), c.onlyMeasured.end());
  if (!c.matched.empty()) {
    c.meanSlipUs = sum / static_cast<double>(c.matched.size());
    c.meanAbsSlipUs = sumAbs / static_cast<double>(c.matched.size());
  }
  if (!c.onlyPredicted.empty() || !c.onlyMeasured.empty()) {
    c.warnings.push_back(std::to_string(c.onlyPredicted.size()) + " predicted and " +
                         std::to_string(c.onlyMeasured.size()) + " measured rTasks have no partner");
  }
  return c;
}

}  // namespace rammer::viz

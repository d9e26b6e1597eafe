#include "core/schedule/dynamic_program.h"

#include <algorithm>
#include <map>

#include "core/schedule/plan.h"

namespace rammer::schedule {

int64_t DynamicProgram::numRTasks() const {
  int64_t n = 0;
  for (const DynamicOp& d : ops) n += d.rtasks;
  return n;
}

DynamicProgram buildDynamicProgram(const Plan& plan, const std::vector<int32_t>& ops,
                                   const std::function<double(int32_t op)>& opUs) {
  DynamicProgram dp;
  std::map<int32_t, int32_t> index;  // plan op -> entry
  for (int32_t op : ops) {
    DynamicOp d;
    d.op = op;
    d.rtasks = plan.ops.at(static_cast<size_t>(op)).kernel.numRTasks;
    index[op] = static_cast<int32_t>(dp.ops.size());
    dp.ops.push_back(std::move(d));
  }
  for (size_t i = 0; i < dp.ops.size(); ++i)
    for (int32_t p : plan.ops.at(static_cast<size_t>(dp.ops[i].op)).producers) {
      auto it = index.find(p);
      if (it == index.end()) continue;  // an earlier program: finished at launch
      dp.ops[i].gate += dp.ops[static_cast<size_t>(it->second)].rtasks;
      dp.ops[static_cast<size_t>(it->second)].consumers.push_back(static_cast<int32_t>(i));
    }
  // Longest path to the end, consumers after producers: backwards.
  for (size_t i = dp.ops.size(); i-- > 0;) {
    double tail = 0;
    for (int32_t c : dp.ops[i].consumers) tail = std::max(tail, dp.ops[static_cast<size_t>(c)].priority);
    dp.ops[i].priority = opUs(dp.ops[i].op) + tail;
  }
  auto byPriority = [&](int32_t a, int32_t b) {
    const double pa = dp.ops[static_cast<size_t>(a)].priority, pb = dp.ops[static_cast<size_t>(b)].priority;
    return pa != pb ? pa > pb : a < b;
  };
  for (size_t i = 0; i < dp.ops.size(); ++i) {
    std::sort(dp.ops[i].consumers.begin(), dp.ops[i].consumers.end(), byPriority);
    if (dp.ops[i].gate == 0) dp.initial.push_back(static_cast<int32_t>(i));
  }
  std::sort(dp.initial.begin(), dp.initial.end(), byPriority);
  dp.queueCapacity = static_cast<int64_t>(dp.ops.size());
  return dp;
}

std::vector<std::string> checkDynamicProgram(const Plan& plan, size_t program) {
  std::vector<std::string> errors;
  const ProgramInfo& info = plan.programs.at(program);
  if (!info.dynamic) return {"program " + std::to_string(program) + " is not dynamic"};
  const DynamicProgram& dp = *info.dynamic;
  const std::string where = "dynamic program " + std::to_string(program) + ": ";
  auto name = [&](size_t i) { return "'" + plan.ops.at(static_cast<size_t>(dp.ops[i].op)).name + "'"; };
  std::map<int32_t, size_t> index;
  for (size_t i = 0; i < dp.ops.size(); ++i) {
    const int32_t op = dp.ops[i].op;
    if (op < 0 || static_cast<size_t>(op) >= plan.ops.size()) {
      errors.push_back(where + "entry " + std::to_string(i) + " names no operator of the plan");
      return errors;
    }
    if (!index.emplace(op, i).second) errors.push_back(where + name(i) + " appears twice");
    if (dp.ops[i].rtasks != plan.ops[static_cast<size_t>(op)].kernel.numRTasks)
      errors.push_back(where + name(i) + " has " + std::to_string(dp.ops[i].rtasks) + " rTasks, its rKernel " +
                       std::to_string(plan.ops[static_cast<size_t>(op)].kernel.numRTasks));
  }
  if (!errors.empty()) return errors;
  // Each gate: the rTasks of the producers in this program, each of them
  // listing the consumer, earlier in the order.
  std::vector<std::vector<int32_t>> expected(dp.ops.size());
  for (size_t i = 0; i < dp.ops.size(); ++i) {
    int64_t gate = 0;
    for (int32_t p : plan.ops[static_cast<size_t>(dp.ops[i].op)].producers) {
      auto it = index.find(p);
      if (it == index.end()) continue;
      if (it->second >= i)
        errors.push_back(where + name(i) + " comes before its producer " + name(it->second) +
                         ": the order is not topological");
      gate += dp.ops[it->second].rtasks;
      expected[it->second].push_back(static_cast<int32_t>(i));
    }
    if (dp.ops[i].gate != gate)
      errors.push_back(where + name(i) + "'s gate is " + std::to_string(dp.ops[i].gate) + ", but " +
                       std::to_string(gate) + " producer rTasks must finish first");
  }
  for (size_t i = 0; i < dp.ops.size(); ++i) {
    std::vector<int32_t> got = dp.ops[i].consumers;
    std::sort(got.begin(), got.end());
    if (got != expected[i])
      errors.push_back(where + name(i) + " decrements the gates of " + std::to_string(got.size()) + " operators, but " +
                       std::to_string(expected[i].size()) + " read it");
  }
  std::vector<int32_t> ready, initial = dp.initial;
  for (size_t i = 0; i < dp.ops.size(); ++i)
    if (dp.ops[i].gate == 0) ready.push_back(static_cast<int32_t>(i));
  std::sort(initial.begin(), initial.end());
  if (initial != ready)
    errors.push_back(where + "the queue at launch holds " + std::to_string(initial.size()) + " operators, but " +
                     std::to_string(ready.size()) + " have no producer in the program");
  if (dp.claimShards < 1 || dp.claimShards > std::max(1, info.program.numVEUs()))
    errors.push_back(where + std::to_string(dp.claimShards) + " claim shards for " +
                     std::to_string(info.program.numVEUs()) + " vEUs: a shard per vEU at most, and at least one");
  if (dp.queueCapacity < static_cast<int64_t>(dp.ops.size()))
    errors.push_back(where + "the ready queue holds " + std::to_string(dp.queueCapacity) + " entries, fewer than its " +
                     std::to_string(dp.ops.size()) + " operators: it could overflow");
  return errors;
}

}  // namespace rammer::schedule

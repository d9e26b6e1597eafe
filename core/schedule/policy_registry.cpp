#include "core/schedule/policy_registry.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "core/schedule/policy.h"

namespace rammer::schedule {

const std::vector<PolicyInfo>& policyRegistry() {
  static const std::vector<PolicyInfo> registry = {
      {PolicyId::Sequential, "sequential", "rammerbase", "RammerBase",
       "one program per operator, its fastest rKernel on every vEU: the baseline", true, false, true},
      {PolicyId::Wavefront, "wavefront", "rammer", "Rammer",
       "Rammer's Algorithm 1: each wave of ready operators spread over the vEUs, fastest or most efficient rKernel",
       true, false, false},
      {PolicyId::Greedy, "greedy", "", "",
       "all ready operators form a stage, a global barrier between stages, rTasks to the vEU free first", true, false,
       false},
      {PolicyId::Ios, "ios", "", "IOS",
       "IOS: dynamic programming over stages of concurrent groups or merged operators (--ios-r, --ios-s)", true, true,
       false},
      {PolicyId::GraphTurbo, "graphturbo", "", "GraphTurbo",
       "GraphTurbo: producer-consumer sub-graphs grouped by fast memory, split into ordered instances (--gt-*)", true,
       true, false},
      {PolicyId::Dynamic, "dynamic", "", "",
       "rKernels and priorities chosen at compile time; vEUs take ready rTasks from a queue at run time", false, false,
       false},
  };
  return registry;
}

std::vector<PolicyId> policyIds() {
  std::vector<PolicyId> ids;
  for (const PolicyInfo& p : policyRegistry()) ids.push_back(p.id);
  return ids;
}

const PolicyInfo& policyInfo(PolicyId id) {
  for (const PolicyInfo& p : policyRegistry())
    if (p.id == id) return p;
  return policyRegistry().front();  // unreachable: every id has an entry (tested)
}

std::optional<PolicyId> findPolicy(std::string_view name) {
  auto same = [name](std::string_view other) {
    return !other.empty() && other.size() == name.size() &&
           std::equal(name.begin(), name.end(), other.begin(), [](unsigned char a, unsigned char b) {
             return std::tolower(a) == std::tolower(b);
           });
  };
  for (const PolicyInfo& p : policyRegistry())
    if (same(p.name) || same(p.alias)) return p.id;
  return std::nullopt;
}

const PolicyInfo* policyNamed(std::string_view name) {
  const auto id = findPolicy(name);
  return id ? &policyInfo(*id) : nullptr;
}

std::string policyName(PolicyId id) { return std::string(policyInfo(id).name); }

ir::Result<PolicyId> parsePolicy(std::string_view name) {
  if (const auto id = findPolicy(name)) return *id;
  std::string names;
  for (const PolicyInfo& p : policyRegistry()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return ir::makeError("unknown policy '" + std::string(name) + "'; policies: " + names);
}

std::string defaultPolicyName() { return policyName(kDefaultPolicy); }

bool PolicyOption::accepts(std::string_view value) const {
  return choices.empty() || std::find(choices.begin(), choices.end(), value) != choices.end();
}

std::string PolicyOption::choiceList() const {
  std::string s;
  for (const std::string& c : choices) s += (s.empty() ? "" : ", ") + c;
  return s;
}

const std::vector<PolicyOption>& policyOptions(PolicyId id) {
  static const IosOptions ios;
  static const GraphTurboOptions gt;
  static const std::vector<PolicyOption> kIos = {
      {"ios-r", "Operators per group", "IOS: operators per group (--policy ios)", {}, std::to_string(ios.maxGroupOps)},
      {"ios-s", "Groups per stage", "IOS: groups per stage (--policy ios)", {}, std::to_string(ios.maxGroups)},
      {"ios-variant", "Stages",
       "IOS: stages of concurrent groups (parallel), operator merges (merge: operators on one input as one wider "
       "operator and a Split) or either (both)",
       {"parallel", "merge", "both"}, ios.variant},
      {"ios-programs", "rPrograms", "IOS: all stages in one rProgram with barriers (one) or one launch per stage (stage)",
       {"one", "stage"}, ios.programs},
  };
  static const std::vector<PolicyOption> kGraphTurbo = {
      {"gt-order", "Instance order",
       "GraphTurbo: instance order, breadth-first (bfs), depth-first (dfs) or the faster by the cost model (auto)",
       {"auto", "bfs", "dfs"}, gt.order},
      {"gt-budget", "Fast-memory budget",
       "GraphTurbo: fast memory one instance may use, in KB (default: a quarter of an SM's shared memory)", {},
       gt.budgetBytes > 0 ? std::to_string(gt.budgetBytes / 1024) : std::string()},
  };
  static const std::vector<PolicyOption> kNone;
  return id == PolicyId::Ios ? kIos : id == PolicyId::GraphTurbo ? kGraphTurbo : kNone;
}

const PolicyOption& policyOption(PolicyId id, std::string_view flag) {
  for (const PolicyOption& o : policyOptions(id))
    if (o.flag == flag) return o;
  throw std::out_of_range("policy " + policyName(id) + " has no option --" + std::string(flag));
}

}  // namespace rammer::schedule

#pragma once
// IOS's search (Ding et al., MLSys'21, "IOS: Inter-Operator Scheduler for
// CNN Acceleration"): a schedule is a sequence of *stages*; the best
// schedule of a set S of operators still to run is found by dynamic
// programming over the *endings* of S (sets E whose operators have no
// successor outside E in S):
//
//   cost(S) = min over endings E of  cost(S - E) + stage_cost(E),  cost({}) = 0
//
// memoized on S. A stage runs either as *concurrent groups* (groups in
// parallel, the operators of a group in sequence) or as an *operator merge*
// (operators of one type on one input computed as one wider operator).
// Pruning bounds a group to r operators and a stage to s groups.
//
// Here a group is a weakly connected part of the stage: two parts with no
// edge between them gain nothing from running in sequence, so the search
// does not consider joining them (with a cost that is monotone in the
// groups, as the policy's is). The costs come from the caller (the policy
// asks its cost model), so this file knows nothing of rKernels or devices.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace rammer::schedule {

enum class IosStageKind { Concurrent, Merge };

struct IosProblem {
  int numOps = 0;
  // preds[i]: the operators i reads from; every index below i (topological order).
  std::vector<std::vector<int>> preds;
  int maxGroupOps = 3;  // r
  int maxGroups = 8;    // s
  // The variants: concurrent groups, operator merges, or both. A stage of
  // one operator is allowed in every variant.
  bool allowConcurrent = true;
  bool allowMerge = false;
  // Time of a stage of concurrent groups (each group's operators in order).
  std::function<double(const std::vector<std::vector<int>>& groups)> concurrentCost;
  // Time of the operators merged into one; nullopt when they cannot merge.
  std::function<std::optional<double>(const std::vector<int>& ops)> mergeCost;
  // The search gives up (IosSolution::overBudget) after this many endings; 0: never.
  size_t maxEndings = 0;
};

struct IosStage {
  IosStageKind kind = IosStageKind::Concurrent;
  std::vector<std::vector<int>> groups;  // a merge stage: one group, the merged operators
  double cost = 0;
  // The best schedule of the same operators that does not end with this
  // stage (what the choice beat); nullopt when there was no other.
  std::optional<double> alternativeCost;
  double bestCost = 0;  // the best schedule of the operators up to and including this stage
};

struct IosSolution {
  double cost = 0;
  std::vector<IosStage> stages;  // in execution order
  size_t states = 0;             // distinct sets S the DP solved
  size_t endings = 0;            // endings it tried
  bool cancelled = false;
  bool overBudget = false;  // stopped after IosProblem::maxEndings endings: no solution
};

// The best stage sequence; `cancelled` is polled per state.
IosSolution solveIos(const IosProblem& problem, const std::function<bool()>& cancelled = {});

// The groups of `ops` run as one concurrent stage (its weakly connected
// parts, each in topological order), or nullopt when a part has more than
// r operators or there are more than s parts.
std::optional<std::vector<std::vector<int>>> concurrentGroups(const IosProblem& problem, const std::vector<int>& ops);

}  // namespace rammer::schedule

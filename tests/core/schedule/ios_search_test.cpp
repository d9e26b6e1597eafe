// IOS's dynamic program over endings is exact: on random DAGs of up to 10
// operators its cost equals an exhaustive search over every ordered
// partition into stages (every subset of the remaining operators tried as
// the next stage), under the same stage costs; and its stages form a valid
// schedule whose costs add up.
#include "core/schedule/ios_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace rammer::schedule {
namespace {

struct Dag {
  IosProblem problem;
  std::vector<double> work;  // per operator
  std::vector<int> type;     // operators of one type with the same inputs may merge
};

Dag randomDag(std::mt19937& rng, int n, double edgeProbability, bool merge) {
  Dag d;
  d.problem.numOps = n;
  d.problem.preds.resize(static_cast<size_t>(n));
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j)
      if (u(rng) < edgeProbability) d.problem.preds[static_cast<size_t>(i)].push_back(j);
    d.work.push_back(1 + std::floor(9 * u(rng)));
    d.type.push_back(static_cast<int>(3 * u(rng)));
  }
  d.problem.maxGroupOps = 2 + static_cast<int>(2 * u(rng));  // 2..3
  d.problem.maxGroups = 2 + static_cast<int>(3 * u(rng));    // 2..4
  d.problem.allowMerge = merge;
  const std::vector<double> work = d.work;
  const std::vector<int> type = d.type;
  const auto preds = d.problem.preds;
  // Concurrent groups: the longest group, unless the device is the limit
  // (half the summed work), plus a fixed stage overhead.
  d.problem.concurrentCost = [work](const std::vector<std::vector<int>>& groups) {
    double longest = 0, total = 0;
    for (const auto& g : groups) {
      double sum = 0;
      for (int op : g) sum += work[static_cast<size_t>(op)];
      longest = std::max(longest, sum);
      total += sum;
    }
    return std::max(longest, total / 2) + 1.5;
  };
  // A merge: operators of one type reading the same inputs, cheaper than apart.
  d.problem.mergeCost = [work, type, preds](const std::vector<int>& ops) -> std::optional<double> {
    double sum = 0;
    for (int op : ops) {
      if (type[static_cast<size_t>(op)] != type[static_cast<size_t>(ops[0])] ||
          preds[static_cast<size_t>(op)] != preds[static_cast<size_t>(ops[0])])
        return std::nullopt;
      sum += work[static_cast<size_t>(op)];
    }
    return 0.6 * sum + 1.5;
  };
  return d;
}

// Every ordered partition into valid stages, by trying every subset of the
// remaining operators as the next stage (memoized on the remaining set).
double exhaustive(const IosProblem& p, uint32_t remaining, std::map<uint32_t, double>& memo) {
  if (remaining == 0) return 0;
  if (auto it = memo.find(remaining); it != memo.end()) return it->second;
  double best = std::numeric_limits<double>::infinity();
  for (uint32_t stage = remaining; stage != 0; stage = (stage - 1) & remaining) {
    std::vector<int> ops;
    bool ready = true;
    for (int i = 0; i < p.numOps; ++i) {
      if (!(stage >> i & 1)) continue;
      ops.push_back(i);
      // Every producer has run, or runs in this stage.
      for (int q : p.preds[static_cast<size_t>(i)])
        if ((remaining >> q & 1) && !(stage >> q & 1)) ready = false;
    }
    if (!ready) continue;
    const double rest = exhaustive(p, remaining & ~stage, memo);
    if ((p.allowConcurrent || ops.size() == 1))
      if (auto groups = concurrentGroups(p, ops)) best = std::min(best, p.concurrentCost(*groups) + rest);
    if (p.allowMerge && ops.size() >= 2) {
      bool independent = true;
      for (int op : ops)
        for (int q : p.preds[static_cast<size_t>(op)])
          if (stage >> q & 1) independent = false;
      if (independent)
        if (auto c = p.mergeCost(ops)) best = std::min(best, *c + rest);
    }
  }
  return memo[remaining] = best;
}

// The stages run every operator once, after its producers, and their costs
// add up to the solution's.
void expectValidSchedule(const IosProblem& p, const IosSolution& s) {
  std::vector<int> stageOf(static_cast<size_t>(p.numOps), -1);
  double total = 0;
  for (size_t k = 0; k < s.stages.size(); ++k) {
    total += s.stages[k].cost;
    if (s.stages[k].alternativeCost) {
      EXPECT_GE(*s.stages[k].alternativeCost, s.stages[k].bestCost);
    }
    for (const auto& g : s.stages[k].groups) {
      EXPECT_LE(static_cast<int>(g.size()), s.stages[k].kind == IosStageKind::Merge ? p.numOps : p.maxGroupOps);
      for (int op : g) {
        ASSERT_EQ(stageOf[static_cast<size_t>(op)], -1) << "operator " << op << " runs twice";
        stageOf[static_cast<size_t>(op)] = static_cast<int>(k);
      }
    }
  }
  for (int i = 0; i < p.numOps; ++i) {
    ASSERT_GE(stageOf[static_cast<size_t>(i)], 0) << "operator " << i << " never runs";
    for (int q : p.preds[static_cast<size_t>(i)]) EXPECT_LE(stageOf[static_cast<size_t>(q)], stageOf[static_cast<size_t>(i)]);
  }
  EXPECT_NEAR(total, s.cost, 1e-9);
}

TEST(IosSearch, EqualsAnExhaustiveSearchOnRandomDags) {
  std::mt19937 rng(20261125);
  int cases = 0;
  for (int n = 1; n <= 10; ++n)
    for (double density : {0.0, 0.2, 0.5})
      for (bool merge : {false, true})
        for (int rep = 0; rep < 3; ++rep) {
          Dag d = randomDag(rng, n, density, merge);
          SCOPED_TRACE(testing::Message() << "n=" << n << " density=" << density << " merge=" << merge << " rep=" << rep);
          const IosSolution s = solveIos(d.problem);
          std::map<uint32_t, double> memo;
          const double want = exhaustive(d.problem, (1u << n) - 1, memo);
          ASSERT_FALSE(s.cancelled);
          EXPECT_NEAR(s.cost, want, 1e-9);
          expectValidSchedule(d.problem, s);
          EXPECT_GT(s.states, 0u);
          ++cases;
        }
  EXPECT_EQ(cases, 180);
}

// The sequential schedule (one operator per stage) is in IOS's space, so
// the DP never does worse; on independent operators it runs them together.
TEST(IosSearch, NeverWorseThanOneOperatorPerStageAndGroupsIndependentOnes) {
  std::mt19937 rng(7);
  Dag d = randomDag(rng, 6, 0.0, false);
  d.problem.maxGroupOps = 3;
  d.problem.maxGroups = 8;
  const IosSolution s = solveIos(d.problem);
  double sequential = 0;
  for (int i = 0; i < 6; ++i) sequential += d.problem.concurrentCost({{i}});
  EXPECT_LT(s.cost, sequential);
  ASSERT_EQ(s.stages.size(), 1u);  // six independent operators: one stage of six groups
  EXPECT_EQ(s.stages[0].groups.size(), 6u);
  ASSERT_TRUE(s.stages[0].alternativeCost);
  EXPECT_GT(*s.stages[0].alternativeCost, s.cost);
}

TEST(IosSearch, PruningBoundsGroupsAndStages) {
  IosProblem p;
  p.numOps = 4;  // a chain: one group of four unless r is smaller
  p.preds = {{}, {0}, {1}, {2}};
  p.maxGroupOps = 2;
  p.maxGroups = 1;
  p.concurrentCost = [](const std::vector<std::vector<int>>& groups) {
    double n = 0;
    for (const auto& g : groups) n += static_cast<double>(g.size());
    return n + 1;  // a stage costs 1 plus one per operator: fewer stages are better
  };
  const IosSolution s = solveIos(p);
  ASSERT_EQ(s.stages.size(), 2u);  // r = 2 splits the chain in two
  EXPECT_EQ(s.stages[0].groups, (std::vector<std::vector<int>>{{0, 1}}));
  EXPECT_EQ(s.stages[1].groups, (std::vector<std::vector<int>>{{2, 3}}));
  EXPECT_DOUBLE_EQ(s.cost, 6);
  EXPECT_FALSE(concurrentGroups(p, {0, 1, 2}));  // more than r operators in one group
  IosProblem wide = p;
  wide.preds = {{}, {}, {}, {}};
  wide.maxGroupOps = 3;
  wide.maxGroups = 2;
  EXPECT_FALSE(concurrentGroups(wide, {0, 1, 2}));  // more than s groups
  EXPECT_TRUE(concurrentGroups(wide, {0, 1}));
}

// The same ending recurs from every state it ends: the search asks the
// caller for its price once (the policy's cost model is most of IOS's time).
TEST(IosSearch, EachEndingIsPricedOnce) {
  std::mt19937 rng(11);
  Dag d = randomDag(rng, 10, 0.15, true);
  std::map<std::vector<int>, int> concurrentAsks, mergeAsks;
  auto opsOf = [](const std::vector<std::vector<int>>& groups) {
    std::vector<int> ops;
    for (const auto& g : groups) ops.insert(ops.end(), g.begin(), g.end());
    std::sort(ops.begin(), ops.end());
    return ops;
  };
  const auto concurrent = d.problem.concurrentCost;
  const auto merge = d.problem.mergeCost;
  d.problem.concurrentCost = [&](const std::vector<std::vector<int>>& groups) {
    ++concurrentAsks[opsOf(groups)];
    return concurrent(groups);
  };
  d.problem.mergeCost = [&](const std::vector<int>& ops) {
    ++mergeAsks[opsOf({ops})];
    return merge(ops);
  };
  const IosSolution s = solveIos(d.problem);
  ASSERT_FALSE(s.stages.empty());
  for (const auto& [ops, asks] : concurrentAsks) EXPECT_EQ(asks, 1) << ops.size() << " operators";
  for (const auto& [ops, asks] : mergeAsks) EXPECT_EQ(asks, 1) << ops.size() << " operators";
  EXPECT_LT(concurrentAsks.size(), s.endings);  // endings recurred, and were not priced again
  // Unchanged from pricing every ending each time.
  std::mt19937 again(11);
  const Dag plain = randomDag(again, 10, 0.15, true);
  EXPECT_DOUBLE_EQ(solveIos(plain.problem).cost, s.cost);
}

// Blocks past 128 operators keep their sets on the heap: a chain of 130
// in groups of at most 3 is 44 stages.
TEST(IosSearch, SolvesBlocksLargerThanTheInlineSets) {
  IosProblem p;
  p.numOps = 130;
  p.preds.resize(130);
  for (int i = 1; i < 130; ++i) p.preds[static_cast<size_t>(i)] = {i - 1};
  p.maxGroupOps = 3;
  p.maxGroups = 1;
  p.concurrentCost = [](const std::vector<std::vector<int>>& groups) {
    return 1.0 + static_cast<double>(groups[0].size());  // one per stage and one per operator
  };
  const IosSolution s = solveIos(p);
  EXPECT_EQ(s.stages.size(), 44u);
  EXPECT_DOUBLE_EQ(s.cost, 130 + 44);
  int next = 0;
  for (const IosStage& stage : s.stages)
    for (int op : stage.groups.at(0)) EXPECT_EQ(op, next++);
  EXPECT_EQ(next, 130);
}

// Sixteen independent operators have 3^16 endings: the search stops at
// its budget and says so, instead of searching for half a minute.
TEST(IosSearch, AnEndingsBudgetStopsAWideSearch) {
  IosProblem p;
  p.numOps = 16;
  p.preds.assign(16, {});
  p.maxGroups = 16;
  p.concurrentCost = [](const std::vector<std::vector<int>>& groups) {
    return 1.0 + 0.1 * static_cast<double>(groups.size());
  };
  p.maxEndings = 10'000;
  const IosSolution s = solveIos(p);
  EXPECT_TRUE(s.overBudget);
  EXPECT_FALSE(s.cancelled);
  EXPECT_TRUE(s.stages.empty());
  EXPECT_LE(s.endings, 10'001u);
  p.numOps = 8;  // 3^8 = 6,561 endings fit
  p.preds.assign(8, {});
  const IosSolution half = solveIos(p);
  EXPECT_FALSE(half.overBudget);
  ASSERT_EQ(half.stages.size(), 1u);
  EXPECT_EQ(half.stages[0].groups.size(), 8u);
}

TEST(IosSearch, ACancelStopsTheSearch) {
  std::mt19937 rng(3);
  Dag d = randomDag(rng, 10, 0.1, true);
  int polls = 0;
  const IosSolution s = solveIos(d.problem, [&polls] { return ++polls > 5; });
  EXPECT_TRUE(s.cancelled);
  EXPECT_TRUE(s.stages.empty());
}

}  // namespace
}  // namespace rammer::schedule

// The critical-path order (issue #45 item 1) on hand-made problems whose
// estimates are worked out by hand: rTask times A 1, B 1, C 10, D/E/F 3 us,
// a 0.5 us hand-off between operators.
#include "core/schedule/critical_order.h"

#include <gtest/gtest.h>

#include <map>

using namespace rammer::schedule;

namespace {

// A -> B -> D -> E -> F, and C on its own. The policy put C before B on
// vEU 1, so B (on the long chain) queues 9 us behind it.
struct Chain {
  std::map<int32_t, std::vector<int32_t>> deps{{0, {}}, {1, {0}}, {2, {}}, {3, {1}}, {4, {3}}, {5, {4}}};
  std::map<int32_t, double> us{{0, 1}, {1, 1}, {2, 10}, {3, 3}, {4, 3}, {5, 3}};
  OrderProblem problem() const {
    OrderProblem p;
    p.numVEUs = 2;
    p.placements = {{{0, 0}, 0}, {{2, 0}, 1}, {{1, 0}, 1}, {{3, 0}, 0}, {{4, 0}, 0}, {{5, 0}, 0}};
    p.deps = [this](int32_t op) -> const std::vector<int32_t>& { return deps.at(op); };
    p.taskUs = [this](int32_t op) { return us.at(op); };
    p.handoffUs = 0.5;
    return p;
  }
};

std::vector<int32_t> opsOn(const std::vector<std::pair<RTask, int>>& order, int veu) {
  std::vector<int32_t> ops;
  for (const auto& [t, v] : order)
    if (v == veu) ops.push_back(t.op);
  return ops;
}

}  // namespace

TEST(CriticalOrder, TheLongChainGoesFirstAndNothingWaitsBehindWorkThatCanWait) {
  const Chain c;
  const OrderProblem p = c.problem();
  // The policy's order: C [0, 10], B [10, 11], D [11.5, 14.5], E [15, 18], F [18.5, 21.5].
  EXPECT_DOUBLE_EQ(estimatedMakespanUs(p, p.placements), 21.5);
  const auto order = criticalPathOrder(p);
  ASSERT_EQ(order.size(), p.placements.size());
  // vEU 1 keeps itself free for B (ready at 1.5) rather than start C, which
  // would end at 10: B [1.5, 2.5], C [2.5, 12.5]; D [3, 6], E [6.5, 9.5], F [10, 13].
  EXPECT_EQ(opsOn(order, 1), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(opsOn(order, 0), (std::vector<int32_t>{0, 3, 4, 5}));
  EXPECT_DOUBLE_EQ(estimatedMakespanUs(p, order), 13.0);
}

TEST(CriticalOrder, AShortReadyRTaskFillsTheGapBeforeTheCriticalOne) {
  // C takes 1 us now and feeds G (10 us, vEU 1); the policy put B, C, G on
  // vEU 1: B [1.5, 2.5], C [2.5, 3.5], G [4, 14]. B's chain is the most
  // critical but not ready until 1.5; C ends at 1, so it fills the gap:
  // C [0, 1], B [1.5, 2.5], G [2.5, 12.5], and F still ends at 13.
  Chain c;
  c.us[2] = 1;
  c.us[6] = 10;
  c.deps[6] = {2};
  OrderProblem p = c.problem();
  p.placements = {{{0, 0}, 0}, {{1, 0}, 1}, {{2, 0}, 1}, {{6, 0}, 1}, {{3, 0}, 0}, {{4, 0}, 0}, {{5, 0}, 0}};
  EXPECT_DOUBLE_EQ(estimatedMakespanUs(p, p.placements), 14.0);
  const auto order = criticalPathOrder(p);
  EXPECT_EQ(opsOn(order, 1), (std::vector<int32_t>{2, 1, 6}));
  EXPECT_DOUBLE_EQ(estimatedMakespanUs(p, order), 13.0);
}

TEST(CriticalOrder, ThePolicysOrderStaysWhereTheListScheduleEndsLater) {
  // A (2 us) feeds C and D (3 us each, both on vEU 1); B (6 us) stands
  // alone on vEU 0 after A. B's bottom level (6) beats A's (2 + 0.5 + 3),
  // so the list schedule runs B first: B [0, 6], A [6, 8], C [8.5, 11.5],
  // D [11.5, 14.5]. The bottom level does not see that A's two consumers
  // share a vEU; the policy's order ends at 8.5 (A [0, 2], B [2, 8],
  // C [2.5, 5.5], D [5.5, 8.5]) and stays.
  std::map<int32_t, std::vector<int32_t>> deps{{0, {}}, {1, {}}, {2, {0}}, {3, {0}}};
  std::map<int32_t, double> us{{0, 2}, {1, 6}, {2, 3}, {3, 3}};
  OrderProblem p;
  p.numVEUs = 2;
  p.placements = {{{0, 0}, 0}, {{1, 0}, 0}, {{2, 0}, 1}, {{3, 0}, 1}};
  p.deps = [&](int32_t op) -> const std::vector<int32_t>& { return deps.at(op); };
  p.taskUs = [&](int32_t op) { return us.at(op); };
  p.handoffUs = 0.5;
  const auto list = listScheduleOrder(p);
  EXPECT_EQ(opsOn(list, 0), (std::vector<int32_t>{1, 0}));
  EXPECT_DOUBLE_EQ(estimatedMakespanUs(p, list), 14.5);
  EXPECT_DOUBLE_EQ(estimatedMakespanUs(p, p.placements), 8.5);
  EXPECT_EQ(criticalPathOrder(p), p.placements);
}

TEST(CriticalOrder, EveryRTaskOnceOnItsOwnVEUAfterItsProducers) {
  // Four operators of 8 rTasks over 3 vEUs, each reading the one before;
  // the policy appended them round-robin.
  std::map<int32_t, std::vector<int32_t>> deps{{0, {}}, {1, {0}}, {2, {}}, {3, {1, 2}}};
  OrderProblem p;
  p.numVEUs = 3;
  for (int32_t op = 0; op < 4; ++op)
    for (int64_t r = 0; r < 8; ++r) p.placements.push_back({{op, r}, static_cast<int>((op * 8 + r) % 3)});
  p.deps = [&](int32_t op) -> const std::vector<int32_t>& { return deps.at(op); };
  p.taskUs = [](int32_t op) { return 1.0 + op; };
  p.handoffUs = 0.5;
  const auto order = criticalPathOrder(p);
  ASSERT_EQ(order.size(), p.placements.size());
  std::map<RTask, int> veuOf;
  for (const auto& [t, v] : p.placements) veuOf[t] = v;
  std::map<int32_t, int64_t> seen;
  for (const auto& [t, v] : order) {
    EXPECT_EQ(veuOf.at(t), v);
    for (int32_t d : deps.at(t.op)) EXPECT_EQ(seen[d], 8) << "op " << t.op << " before all of op " << d;
    ++seen[t.op];
  }
  for (int32_t op = 0; op < 4; ++op) EXPECT_EQ(seen[op], 8);
}

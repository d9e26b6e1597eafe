// OrderingClocks on hand-written streams: what each barrier knows (directly
// and through chains), which barrier is in force where, how far a
// deadlocked program gets, and the join itself.
#include "core/schedule/ordering_clocks.h"

#include <gtest/gtest.h>

#include "tests/core/schedule/schedule_fixtures.h"

using namespace rammer;
using namespace rammer::schedule;
using rammer::testing::exec;
using rammer::testing::wait;

TEST(OrderingClocks, KnowledgeFollowsBarrierChains) {
  // vEU 1 waits for vEU 0's second slot; vEU 2 waits only for vEU 1's task
  // after that barrier, and so knows vEU 0's slots too.
  const RProgram prog = RProgram::fromStreams({{exec(0, 0), exec(0, 1)},
                                               {wait({{0, 1}}), exec(1, 0)},
                                               {exec(2, 0), wait({{1, 1}}), exec(1, 1)}});
  const OrderingClocks clocks(prog);
  EXPECT_EQ(clocks.progress(), (std::vector<size_t>{2, 2, 3}));
  ASSERT_EQ(clocks.barriers(1).size(), 1u);
  ASSERT_EQ(clocks.barriers(2).size(), 1u);
  EXPECT_TRUE(clocks.barriers(0).empty());
  const int32_t b1 = clocks.barriers(1)[0].snapshot;
  const int32_t b2 = clocks.barriers(2)[0].snapshot;
  EXPECT_EQ(clocks.snapshot(b1), (Knowledge{1, -1, -1}));
  EXPECT_EQ(clocks.snapshot(b2), (Knowledge{1, 1, -1}));
  EXPECT_TRUE(clocks.knows(b2, 0, 0));
  EXPECT_TRUE(clocks.knows(b2, 0, 1));
  EXPECT_FALSE(clocks.knows(b1, 1, 0));
  EXPECT_FALSE(clocks.knows(-1, 0, 0));
  // Ranks are a happens-before order: vEU 2's barrier comes after vEU 1's.
  EXPECT_LT(clocks.barriers(1)[0].rank, clocks.barriers(2)[0].rank);

  // The barrier in force: the latest at or before the order.
  EXPECT_EQ(clocks.barrierIndexAt(2, 0), -1);
  EXPECT_EQ(clocks.barrierIndexAt(2, 1), 0);
  EXPECT_EQ(clocks.barrierIndexAt(2, 2), 0);
  EXPECT_EQ(clocks.barrierIndexAt(0, 1), -1);
}

TEST(OrderingClocks, EqualKnowledgeIsSharedAndLaterBarriersAccumulate) {
  // Two vEUs wait for the same slot: one snapshot. vEU 1's second barrier
  // adds vEU 2's slot to what it knew.
  const RProgram prog = RProgram::fromStreams(
      {{exec(0, 0)}, {wait({{0, 0}}), exec(1, 0), wait({{2, 1}}), exec(1, 1)}, {wait({{0, 0}}), exec(2, 0)}});
  const OrderingClocks clocks(prog);
  ASSERT_EQ(clocks.barriers(1).size(), 2u);
  EXPECT_EQ(clocks.barriers(1)[0].snapshot, clocks.barriers(2)[0].snapshot);
  EXPECT_EQ(clocks.snapshot(clocks.barriers(1)[1].snapshot), (Knowledge{0, -1, 1}));
}

TEST(OrderingClocks, ADeadlockStopsTheVEUsAtTheirBarriers) {
  // vEUs 0 and 1 wait for each other's second slot; vEU 2 waits for a slot that does not exist.
  const RProgram prog = RProgram::fromStreams({{exec(0, 0), wait({{1, 1}}), exec(0, 1)},
                                               {exec(1, 0), wait({{0, 1}}), exec(1, 1)},
                                               {wait({{2, 9}}), exec(2, 0)}});
  const OrderingClocks clocks(prog);
  EXPECT_EQ(clocks.progress(), (std::vector<size_t>{1, 1, 0}));
  for (int v = 0; v < 3; ++v) EXPECT_TRUE(clocks.barriers(v).empty());
}

TEST(OrderingClocks, JoinTakesTheLaterOrderPerVEU) {
  Knowledge a{3, -1, 7, 0};
  joinKnowledge(a, Knowledge{1, 4, 7, -1});
  EXPECT_EQ(a, (Knowledge{3, 4, 7, 0}));
  // Long enough for the vectorised loop and its tail.
  Knowledge big(1001, 5), other(1001, 2);
  other[1000] = 9;
  other[17] = 6;
  joinKnowledge(big, other);
  EXPECT_EQ(big[1000], 9);
  EXPECT_EQ(big[17], 6);
  EXPECT_EQ(big[500], 5);
}

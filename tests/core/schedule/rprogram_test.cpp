// Rammer's Append/Wait primitives and the barrier-pruning rules.
#include <gtest/gtest.h>

#include "core/schedule/rprogram.h"

using namespace rammer::schedule;

namespace {
const Barrier* barrierAt(const RProgram& p, int veu, size_t order) {
  return std::get_if<Barrier>(&p.stream(veu).at(order));
}
}  // namespace

TEST(RProgram, AppendWithoutDepsEmitsNoBarrier) {
  RProgram p(2);
  EXPECT_EQ(p.append({0, 0}, 0), (Slot{0, 0}));
  EXPECT_EQ(p.append({0, 1}, 1), (Slot{1, 0}));
  EXPECT_EQ(p.numBarriers(), 0u);
  EXPECT_EQ(p.numTasks(), 2u);
  EXPECT_EQ(p.slotOf({0, 1}), (Slot{1, 0}));
  EXPECT_EQ(p.slotOf({9, 9}), Slot{});
}

TEST(RProgram, WaitKeepsOnlyTheLastTaskPerVEU) {
  RProgram p(3);
  p.append({0, 0}, 0);
  p.append({0, 1}, 0);
  p.append({0, 2}, 1);
  // Op 1 rTask 0 on vEU 2 waits for all of op 0: one barrier, one slot per vEU.
  p.wait({1, 0}, {{0, 0}, {0, 1}, {0, 2}});
  EXPECT_EQ(p.append({1, 0}, 2), (Slot{2, 1}));
  const Barrier* b = barrierAt(p, 2, 0);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->waits, (std::vector<Slot>{{0, 1}, {1, 0}}));
  EXPECT_EQ(p.numBarriers(), 1u);
}

TEST(RProgram, SameVEUDepsAndKnownCompletionsNeedNoBarrier) {
  RProgram p(2);
  p.append({0, 0}, 0);
  p.append({0, 1}, 1);
  // Same vEU: program order suffices.
  p.wait({1, 0}, {{0, 0}});
  p.append({1, 0}, 0);
  EXPECT_EQ(p.numBarriers(), 0u);
  // vEU 0 waits for vEU 1 once; a later task needing the same is covered.
  p.wait({1, 1}, {{0, 1}});
  p.append({1, 1}, 0);
  p.wait({2, 0}, {{0, 1}});
  p.append({2, 0}, 0);
  EXPECT_EQ(p.numBarriers(), 1u);
  EXPECT_EQ(p.stream(0).size(), 5u);  // exec, exec, barrier, exec, exec
}

TEST(RProgram, DepsFromEarlierProgramsAreIgnored) {
  RProgram p(1);
  p.wait({5, 0}, {{4, 0}, {4, 1}});  // op 4 ran in a previous program
  p.append({5, 0}, 0);
  EXPECT_EQ(p.numBarriers(), 0u);
}

TEST(RProgram, RefusesBadPlacement) {
  RProgram p(2);
  p.append({0, 0}, 0);
  EXPECT_THROW(p.append({0, 0}, 1), std::logic_error);
  EXPECT_THROW(p.append({0, 1}, 2), std::out_of_range);
}

TEST(RProgram, FromStreamsIndexesTasks) {
  RProgram p = RProgram::fromStreams({{Exec{{0, 0}}}, {Barrier{{{0, 0}}}, Exec{{1, 0}}}});
  EXPECT_EQ(p.numTasks(), 2u);
  EXPECT_EQ(p.numBarriers(), 1u);
  EXPECT_EQ(p.slotOf({1, 0}), (Slot{1, 1}));
  EXPECT_EQ(p.depth(), 2u);
}

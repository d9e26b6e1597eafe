// The instruction table of hand-made rPrograms, entry by entry: runs of
// rTasks, barriers with flat {vEU, order} wait lists, publishing only where
// someone waits, shared ranges for identical streams, event numbering.
#include <gtest/gtest.h>

#include "core/codegen/instruction_table.h"

namespace rammer::codegen {
namespace {

using schedule::Barrier;
using schedule::Exec;
using schedule::Instr;
using schedule::RProgram;
using schedule::Slot;
using schedule::RTask;

Instr exec(int32_t op, int64_t rtask) { return Exec{RTask{op, rtask}}; }
Instr barrier(std::vector<Slot> waits) { return Barrier{std::move(waits)}; }

// Two ops: op 0 in group 0 (args at 0), op 1 in group 1 (args at 2).
const std::vector<int32_t> kGroups = {0, 1};
const std::vector<int32_t> kArgs = {0, 2};

TEST(InstructionTable, RunsBarriersAndPublishing) {
  // vEU 0: op0 rTasks 0, 2, 4 (one strided run); vEU 1: op0 rTasks 1, 3;
  // vEU 2 waits for both, then runs op1 rTask 0; vEUs 3 and 4 are idle.
  const RProgram prog = RProgram::fromStreams({
      {exec(0, 0), exec(0, 2), exec(0, 4)},
      {exec(0, 1), exec(0, 3)},
      {barrier({{1, 1}, {0, 2}}), exec(1, 0)},
      {},
      {},
  });
  auto t = buildInstructionTable(prog, kGroups, kArgs);
  ASSERT_TRUE(t) << t.errorText();

  ASSERT_EQ(t->streams.size(), 5u);
  // vEU 0: one run of 3 with stride 2; order 2 is awaited: publish 3.
  const StreamRange s0 = t->streams[0];
  ASSERT_EQ(s0.end - s0.begin, 1);
  EXPECT_EQ(t->entries[static_cast<size_t>(s0.begin)], (TableEntry{0, 0, 0, 3, 2, 3}));
  // vEU 1: rTasks 1, 3; order 1 awaited: publish 2.
  const StreamRange s1 = t->streams[1];
  ASSERT_EQ(s1.end - s1.begin, 1);
  EXPECT_EQ(t->entries[static_cast<size_t>(s1.begin)], (TableEntry{0, 0, 1, 2, 2, 2}));
  // vEU 2: a barrier on two vEUs, then op 1 (group 1, args at 2); nobody
  // waits for vEU 2, so nothing there publishes.
  const StreamRange s2 = t->streams[2];
  ASSERT_EQ(s2.end - s2.begin, 2);
  const TableEntry& b = t->entries[static_cast<size_t>(s2.begin)];
  EXPECT_EQ(b.fn, -1);
  EXPECT_EQ(b.count, 2);  // two awaited vEUs
  EXPECT_EQ(b.publish, 0);
  const std::vector<int32_t> pairs(t->waits.begin() + b.args, t->waits.begin() + b.args + 4);
  EXPECT_EQ(pairs, (std::vector<int32_t>{0, 2, 1, 1}));  // {vEU, order}, sorted by vEU
  EXPECT_EQ(t->entries[static_cast<size_t>(s2.begin + 1)], (TableEntry{1, 2, 0, 1, 0, 0}));
  // Idle vEUs share one empty range and do not count as active.
  EXPECT_EQ(t->streams[3].begin, t->streams[4].begin);
  EXPECT_EQ(t->streams[3].begin, t->streams[3].end);
  EXPECT_EQ(t->activeVEUs, 3);
  EXPECT_EQ(t->entries.size(), 4u);

  // Events: vEU by vEU, in stream order; barriers are no events.
  EXPECT_EQ(t->eventBase, (std::vector<int64_t>{0, 3, 5, 6, 6}));
  ASSERT_EQ(t->timedTasks.size(), 6u);
  EXPECT_EQ(t->timedTasks[1].task, (RTask{0, 2}));
  EXPECT_EQ(t->timedTasks[5].task, (RTask{1, 0}));
  EXPECT_EQ(t->timedTasks[5].veu, 2);
  EXPECT_EQ(t->timedTasks[5].order, 1);
}

TEST(InstructionTable, AwaitedSlotEndsARun) {
  // rTasks 0, 1, 2 on vEU 0, vEU 1 waits for order 1: the run must publish
  // right after rTask 1, so it splits there.
  const RProgram prog = RProgram::fromStreams({
      {exec(0, 0), exec(0, 1), exec(0, 2)},
      {barrier({{0, 1}}), exec(1, 0)},
  });
  auto t = buildInstructionTable(prog, kGroups, kArgs);
  ASSERT_TRUE(t) << t.errorText();
  const StreamRange s0 = t->streams[0];
  ASSERT_EQ(s0.end - s0.begin, 2);
  EXPECT_EQ(t->entries[static_cast<size_t>(s0.begin)], (TableEntry{0, 0, 0, 2, 1, 2}));
  EXPECT_EQ(t->entries[static_cast<size_t>(s0.begin + 1)], (TableEntry{0, 0, 2, 1, 0, 0}));
}

TEST(InstructionTable, RunsNeedOneOpAndAConstantStride) {
  const RProgram prog = RProgram::fromStreams({
      {exec(0, 0), exec(0, 1), exec(0, 3), exec(1, 4), exec(1, 5)},
  });
  auto t = buildInstructionTable(prog, kGroups, kArgs);
  ASSERT_TRUE(t) << t.errorText();
  ASSERT_EQ(t->entries.size(), 3u);
  EXPECT_EQ(t->entries[0], (TableEntry{0, 0, 0, 2, 1, 0}));  // 0, 1
  EXPECT_EQ(t->entries[1], (TableEntry{0, 0, 3, 1, 0, 0}));  // 3 breaks the stride
  EXPECT_EQ(t->entries[2], (TableEntry{1, 2, 4, 2, 1, 0}));  // another op
}

TEST(InstructionTable, IdenticalStreamsAndWaitListsAreShared) {
  // vEUs 1 and 2 run the same barrier-only stream; vEU 3's barrier has the
  // same wait list as theirs.
  const RProgram prog = RProgram::fromStreams({
      {exec(0, 0)},
      {barrier({{0, 0}})},
      {barrier({{0, 0}})},
      {barrier({{0, 0}}), exec(0, 1)},
  });
  auto t = buildInstructionTable(prog, kGroups, kArgs);
  ASSERT_TRUE(t) << t.errorText();
  EXPECT_EQ(t->streams[1].begin, t->streams[2].begin);
  EXPECT_EQ(t->streams[1].end, t->streams[2].end);
  EXPECT_NE(t->streams[1].begin, t->streams[3].begin);
  EXPECT_EQ(t->waits, (std::vector<int32_t>{0, 0}));  // one list, stored once
  EXPECT_EQ(t->entries.size(), 4u);                       // v0: 1, v1 = v2: 1, v3: 2
}

TEST(InstructionTable, AWaitListIsOnePairPerAwaitedVEUInVEUOrder) {
  EXPECT_EQ(encodeWaits({{3, 5}, {1, 5}, {2, 5}, {4, 6}, {6, 6}}),
            (std::vector<int32_t>{1, 5, 2, 5, 3, 5, 4, 6, 6, 6}));
  // A vEU listed twice keeps its later slot.
  EXPECT_EQ(encodeWaits({{1, 2}, {2, 2}, {2, 7}}), (std::vector<int32_t>{1, 2, 2, 7}));
  EXPECT_EQ(encodeWaits({{0, 4}, {0, 1}}), (std::vector<int32_t>{0, 4}));
  EXPECT_TRUE(encodeWaits({}).empty());
}

TEST(InstructionTable, RefusesAnOpWithoutFunction) {
  const RProgram prog = RProgram::fromStreams({{exec(0, 0), exec(2, 0)}});
  auto t = buildInstructionTable(prog, kGroups, kArgs);
  ASSERT_FALSE(t);
  EXPECT_NE(t.errorText().find("runs op 2"), std::string::npos) << t.errorText();
}

TEST(InstructionTable, RefusesAWaitForASlotThatNeverRuns) {
  const RProgram prog = RProgram::fromStreams({{exec(0, 0)}, {barrier({{0, 1}}), exec(0, 1)}});
  auto t = buildInstructionTable(prog, kGroups, kArgs);
  ASSERT_FALSE(t);
  EXPECT_NE(t.errorText().find("waits for vEU 0 order 1, which does not exist"), std::string::npos) << t.errorText();
}

TEST(InstructionTable, RefusesRtasksBeyond32Bits) {
  const RProgram prog = RProgram::fromStreams({{exec(0, int64_t{1} << 33)}});
  auto t = buildInstructionTable(prog, kGroups, kArgs);
  ASSERT_FALSE(t);
  EXPECT_NE(t.errorText().find("32-bit"), std::string::npos) << t.errorText();
}

}  // namespace
}  // namespace rammer::codegen

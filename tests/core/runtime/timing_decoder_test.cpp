// Decoding a synthetic timing buffer (start ns, end ns, smid per rTask) of
// the hand-written program into a measured Trace.
#include <gtest/gtest.h>

#include "core/runtime/timing_decoder.h"
#include "tests/core/runtime/runtime_fixtures.h"

namespace rammer::runtime {
namespace {

constexpr uint64_t kT = 5'000'000'000ull;

// Event order of handProgram(): (op0 r0 vEU0), (op0 r1 vEU1), (op1 r0 vEU1),
// (op1 r1 vEU0), then program 1's (op2 r0).
std::vector<uint64_t> words() {
  return {kT + 0,    kT + 2000, 3,  //
          kT + 500,  kT + 3000, 7,  //
          kT + 4000, kT + 5000, 7,  //
          kT + 3500, kT + 6000, 3,  //
          kT + 8000, kT + 9000, 3};
}

TEST(TimingDecoder, TasksProgramsAndBarriers) {
  const schedule::Plan plan = testing::handPlan();
  auto t = decodeTiming(plan, testing::handProgram(), words(), {"Test GPU", 10});
  ASSERT_TRUE(t.ok()) << t.errorText();
  EXPECT_TRUE(t->measured);
  EXPECT_EQ(t->source, "measured: Test GPU %globaltimer");
  EXPECT_EQ(t->device, "h100");
  EXPECT_EQ(t->sms, 10);
  EXPECT_EQ(t->opNames, (std::vector<std::string>{"mul", "mirror", "sum"}));
  EXPECT_EQ(t->kernelNames[2], "sum_k");

  ASSERT_EQ(t->tasks.size(), 5u);
  // Sorted by (program, vEU, start); microseconds from the first start.
  struct Want {
    int op, rtask, program, veu, order, sm;
    double start, end;
  };
  const Want want[] = {{0, 0, 0, 0, 0, 3, 0.0, 2.0}, {1, 1, 0, 0, 2, 3, 3.5, 6.0}, {0, 1, 0, 1, 0, 7, 0.5, 3.0},
                       {1, 0, 0, 1, 2, 7, 4.0, 5.0}, {2, 0, 1, 0, 0, 3, 8.0, 9.0}};
  for (size_t i = 0; i < 5; ++i) {
    const sim::TaskEvent& e = t->tasks[i];
    EXPECT_EQ(e.task, (schedule::RTask{want[i].op, want[i].rtask})) << i;
    EXPECT_EQ(e.program, want[i].program) << i;
    EXPECT_EQ(e.veu, want[i].veu) << i;
    EXPECT_EQ(e.order, want[i].order) << i;
    EXPECT_EQ(e.sm, want[i].sm) << i;
    EXPECT_DOUBLE_EQ(e.startUs, want[i].start) << i;
    EXPECT_DOUBLE_EQ(e.endUs, want[i].end) << i;
  }

  // vEU 0 waits from its first rTask's end (2) to its next start (3.5) for
  // slot (1,0); vEU 1 from 3 to 4 for slot (0,0).
  ASSERT_EQ(t->barriers.size(), 2u);
  EXPECT_EQ(t->barriers[0].veu, 0);
  EXPECT_EQ(t->barriers[0].order, 1);
  EXPECT_DOUBLE_EQ(t->barriers[0].startUs, 2.0);
  EXPECT_DOUBLE_EQ(t->barriers[0].endUs, 3.5);
  EXPECT_EQ(t->barriers[0].lastSlot, (schedule::Slot{1, 0}));
  EXPECT_EQ(t->barriers[0].sm, 3);
  EXPECT_EQ(t->barriers[1].veu, 1);
  EXPECT_DOUBLE_EQ(t->barriers[1].startUs, 3.0);
  EXPECT_DOUBLE_EQ(t->barriers[1].endUs, 4.0);
  EXPECT_EQ(t->barriers[1].lastSlot, (schedule::Slot{0, 0}));

  ASSERT_EQ(t->programs.size(), 2u);
  EXPECT_EQ(t->programs[0].program, 0);
  EXPECT_EQ(t->programs[0].numVEUs, 2);
  EXPECT_EQ(t->programs[0].veusPerSM, 1);
  EXPECT_DOUBLE_EQ(t->programs[0].startUs, 0.0);
  EXPECT_DOUBLE_EQ(t->programs[0].endUs, 6.0);
  EXPECT_DOUBLE_EQ(t->programs[1].startUs, 8.0);
  EXPECT_DOUBLE_EQ(t->programs[1].endUs, 9.0);
  EXPECT_DOUBLE_EQ(t->totalUs, 9.0);
  // SM 3 busy [0,2] + [3.5,6] + [8,9] = 5.5, SM 7 [0.5,3] + [4,5] = 3.5:
  // 9 of 10 SMs x 9 us.
  EXPECT_DOUBLE_EQ(t->smEfficiency, 0.1);
  EXPECT_EQ(t->metrics.at("unrecorded_rtasks"), 0.0);
}

TEST(TimingDecoder, TheLastFinishingSlotReleasesABarrier) {
  schedule::Plan plan = testing::handPlan();
  // vEU 1's barrier also waits for its own first rTask, which ends at 3 > 2.
  auto streams = plan.programs[0].program.streams();
  streams[1][1] = schedule::Barrier{{{0, 0}, {1, 0}}};
  plan.programs[0].program = schedule::RProgram::fromStreams(streams);
  auto t = decodeTiming(plan, testing::handProgram(), words(), {"Test GPU", 10});
  ASSERT_TRUE(t.ok()) << t.errorText();
  ASSERT_EQ(t->barriers.size(), 2u);
  EXPECT_EQ(t->barriers[1].lastSlot, (schedule::Slot{1, 0}));
}

TEST(TimingDecoder, UnrecordedTasksAreSkippedAndCounted) {
  auto w = words();
  w[12] = w[13] = w[14] = 0;  // program 1's rTask never wrote its words
  auto t = decodeTiming(testing::handPlan(), testing::handProgram(), w, {"Test GPU", 0});
  ASSERT_TRUE(t.ok()) << t.errorText();
  EXPECT_EQ(t->tasks.size(), 4u);
  EXPECT_EQ(t->metrics.at("unrecorded_rtasks"), 1.0);
  EXPECT_EQ(t->sms, 132) << "0 SMs given: the plan's device";
  EXPECT_DOUBLE_EQ(t->totalUs, 6.0);
}

// A dynamic program's records (issue #31): no table says which vEU ran an
// rTask, so the kernel writes it into the high half of the SM word; each
// vEU's rTasks are numbered by start time, and there is no barrier.
TEST(TimingDecoder, ADynamicProgramsRecordsNameTheirVEU) {
  schedule::Plan plan = testing::handPlan();
  plan.programs[0].program = schedule::RProgram(2);  // no streams: a queue placed the rTasks
  codegen::GeneratedProgram program = testing::handProgram();
  for (codegen::TimedTask& t : program.launches[0].timedTasks) t.veu = t.order = -1;
  const auto word = [](uint64_t veu, uint64_t sm) { return veu << 32 | sm; };
  const std::vector<uint64_t> w = {kT + 0,    kT + 2000, word(1, 3),  // op0 r0
                                   kT + 500,  kT + 3000, word(0, 7),  // op0 r1
                                   kT + 4000, kT + 5000, word(1, 3),  // op1 r0
                                   kT + 2500, kT + 3500, word(1, 3),  // op1 r1
                                   kT + 8000, kT + 9000, 3};
  auto t = decodeTiming(plan, program, w, {"Test GPU", 10});
  ASSERT_TRUE(t.ok()) << t.errorText();
  ASSERT_EQ(t->tasks.size(), 5u);
  struct Want {
    int op, rtask, veu, order, sm;
  };
  const Want want[] = {{0, 1, 0, 0, 7}, {0, 0, 1, 0, 3}, {1, 1, 1, 1, 3}, {1, 0, 1, 2, 3}};
  for (size_t i = 0; i < 4; ++i) {
    const sim::TaskEvent& e = t->tasks[i];
    EXPECT_EQ(e.task, (schedule::RTask{want[i].op, want[i].rtask})) << i;
    EXPECT_EQ(e.program, 0) << i;
    EXPECT_EQ(e.veu, want[i].veu) << i;
    EXPECT_EQ(e.order, want[i].order) << i;
    EXPECT_EQ(e.sm, want[i].sm) << i;
  }
  EXPECT_TRUE(t->barriers.empty());
  // The static program after it keeps its table's vEU and order.
  EXPECT_EQ(t->tasks[4].program, 1);
  EXPECT_EQ(t->tasks[4].veu, 0);
  EXPECT_EQ(t->tasks[4].sm, 3);
}

TEST(TimingDecoder, AShortBufferIsAnError) {
  auto w = words();
  w.pop_back();
  auto t = decodeTiming(testing::handPlan(), testing::handProgram(), w, {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.errorText().find("holds 14 words"), std::string::npos) << t.errorText();
}

TEST(TimingDecoder, ALaunchOfAnUnknownProgramIsAnError) {
  codegen::GeneratedProgram p = testing::handProgram();
  p.launches[1].program = 5;
  auto t = decodeTiming(testing::handPlan(), p, words(), {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.errorText().find("program 5"), std::string::npos) << t.errorText();
}

}  // namespace
}  // namespace rammer::runtime

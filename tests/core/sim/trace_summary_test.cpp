// Trace summaries over windows and lanes, on a hand-built trace.
#include "core/sim/trace_summary.h"

#include <gtest/gtest.h>

using namespace rammer;

namespace {

// 2 SMs; vEU v on SM v % 2. Op 0 "conv": [0, 4] on vEU 0 and [2, 6] on
// vEU 2 (both SM 0); op 1 "relu": [6, 7] on vEU 1 (SM 1). vEU 1 waits at a
// barrier [0, 6].
sim::Trace handTrace() {
  sim::Trace t;
  t.sms = 2;
  t.totalUs = 7;
  t.opNames = {"conv", "relu"};
  t.opTypes = {"Conv", "Relu"};
  t.kernelNames = {"conv_k", "relu_k"};
  auto task = [](int32_t op, int64_t r, int32_t veu, double s, double e) {
    sim::TaskEvent ev;
    ev.task = {op, r};
    ev.program = 0;
    ev.veu = veu;
    ev.sm = veu % 2;
    ev.startUs = s;
    ev.endUs = e;
    return ev;
  };
  t.tasks = {task(0, 0, 0, 0, 4), task(1, 0, 1, 6, 7), task(0, 1, 2, 2, 6)};
  sim::BarrierEvent b;
  b.program = 0;
  b.veu = 1;
  b.sm = 1;
  b.startUs = 0;
  b.endUs = 6;
  t.barriers = {b};
  return t;
}

}  // namespace

TEST(SimTraceSummary, WholeTrace) {
  const auto s = sim::summarizeTrace(handTrace());
  EXPECT_EQ(s.rtasks, 3u);
  EXPECT_EQ(s.barriers, 1u);
  EXPECT_DOUBLE_EQ(s.busyVeuUs, 4 + 4 + 1);
  EXPECT_DOUBLE_EQ(s.barrierWaitVeuUs, 6);
  // SM 0 busy [0, 6], SM 1 [6, 7]: 7 of 2 x 7.
  EXPECT_DOUBLE_EQ(s.smEfficiency, 0.5);
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.ops[0].name, "conv");
  EXPECT_EQ(s.ops[0].kernel, "conv_k");
  EXPECT_EQ(s.ops[0].rtasks, 2u);
  EXPECT_DOUBLE_EQ(s.ops[0].busyVeuUs, 8);
  EXPECT_DOUBLE_EQ(s.ops[0].firstStartUs, 0);
  EXPECT_DOUBLE_EQ(s.ops[0].lastEndUs, 6);
  EXPECT_EQ(s.ops[1].type, "Relu");
}

TEST(SimTraceSummary, AWindowClipsEvents) {
  // [3, 6.5): conv[0] 1 us, conv[1] 3 us, relu 0.5 us, barrier 3 us.
  const auto s = sim::summarizeTrace(handTrace(), 3, 6.5);
  EXPECT_EQ(s.rtasks, 3u);
  EXPECT_DOUBLE_EQ(s.busyVeuUs, 1 + 3 + 0.5);
  EXPECT_DOUBLE_EQ(s.barrierWaitVeuUs, 3);
  // SM 0 busy [3, 6] = 3, SM 1 [6, 6.5] = 0.5; over 2 x 3.5.
  EXPECT_DOUBLE_EQ(s.smEfficiency, 3.5 / 7);
  // Unclipped extents.
  EXPECT_DOUBLE_EQ(s.ops[0].firstStartUs, 0);
}

TEST(SimTraceSummary, LanesSelectVEUs) {
  const auto s = sim::summarizeTrace(handTrace(), 0, 7, {1});
  EXPECT_EQ(s.rtasks, 1u);
  EXPECT_EQ(s.barriers, 1u);
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].name, "relu");
  EXPECT_DOUBLE_EQ(s.smEfficiency, 1.0 / 14);
  // An empty window holds nothing.
  const auto none = sim::summarizeTrace(handTrace(), 8, 9);
  EXPECT_EQ(none.rtasks, 0u);
  EXPECT_DOUBLE_EQ(none.smEfficiency, 0);
}

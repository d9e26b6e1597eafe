// Per-operator prediction error (issue #28 item 4): operators matched by name
// between a predicted and a measured trace, mean rTask times, the furthest
// first, rows whose rKernel differs after the others.
#include "core/sim/op_time_error.h"

#include <gtest/gtest.h>

namespace rammer::sim {
namespace {

// One trace: per op (name, rKernel) its rTasks' durations.
Trace traceOf(const std::vector<std::tuple<std::string, std::string, std::vector<double>>>& ops) {
  Trace t;
  double at = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& [name, kernel, durations] = ops[i];
    t.opNames.push_back(name);
    t.kernelNames.push_back(kernel);
    t.opTypes.push_back("");
    for (size_t r = 0; r < durations.size(); ++r) {
      TaskEvent e;
      e.task = schedule::RTask{static_cast<int32_t>(i), static_cast<int64_t>(r)};
      e.startUs = at;
      e.endUs = at + durations[r];
      at = e.endUs;
      t.tasks.push_back(e);
    }
  }
  return t;
}

TEST(OpTimeError, OperatorsMatchByNameFurthestFirst) {
  // Op order differs between the two: names, not indices, pair them.
  const Trace predicted = traceOf({{"conv", "gemm_64x64", {2, 2}},
                                   {"relu", "elementwise_1k", {1}},
                                   {"pool", "maxpool_1k", {3}},
                                   {"fc", "gemv_kmajor", {1}},
                                   {"planned_only", "copy", {1}}});
  const Trace measured = traceOf({{"relu", "elementwise_1k", {1.1}},
                                  {"conv", "gemm_64x64", {7, 9}},
                                  {"pool", "maxpool_1k", {1.5}},
                                  {"fc", "gemm_64x64", {50}},
                                  {"measured_only", "copy", {1}}});
  const OpTimeComparison c = compareOpTimes(predicted, measured);
  EXPECT_EQ(c.onlyPredicted, 1u);
  EXPECT_EQ(c.onlyMeasured, 1u);
  ASSERT_EQ(c.ops.size(), 4u);
  // conv: 2 against 8 (4x off), pool: 3 against 1.5 (2x), relu: 1 against 1.1.
  EXPECT_EQ(c.ops[0].op, "conv");
  EXPECT_DOUBLE_EQ(c.ops[0].predictedUs, 2);
  EXPECT_DOUBLE_EQ(c.ops[0].measuredUs, 8);
  EXPECT_DOUBLE_EQ(c.ops[0].ratio(), 0.25);
  EXPECT_EQ(c.ops[0].measuredRTasks, 2u);
  EXPECT_EQ(c.ops[1].op, "pool");
  EXPECT_EQ(c.ops[2].op, "relu");
  // fc ran another rKernel: last, however far off, and marked so.
  EXPECT_EQ(c.ops[3].op, "fc");
  EXPECT_FALSE(c.ops[3].sameKernel());
  EXPECT_EQ(c.ops[3].measuredKernel, "gemm_64x64");
  EXPECT_TRUE(c.ops[0].sameKernel());
}

}  // namespace
}  // namespace rammer::sim

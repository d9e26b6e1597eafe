// What one rTask writes, as runs of output elements (issue #44 item 2):
// runs merge as elements continue them, copies follow strides, skip
// omitted outputs and refuse a run past either side.
#include "core/kernels/written_runs.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace rammer::kernels {
namespace {

TEST(WrittenRuns, ElementsThatContinueARunExtendIt) {
  std::vector<WrittenRun> runs;
  for (int64_t e : {4, 5, 6}) appendWritten(runs, 0, e);  // consecutive
  for (int64_t e : {20, 30, 40}) appendWritten(runs, 0, e);  // a stride of 10
  appendWritten(runs, 1, 41);                               // another output
  appendWritten(runs, 1, 3);                                // going back: a new run
  EXPECT_EQ(runs, (std::vector<WrittenRun>{{0, 4, 3, 1}, {0, 20, 3, 10}, {1, 41, 1, 1}, {1, 3, 1, 1}}));
}

TEST(WrittenRuns, CopiesFollowStridesAndSkipOmittedOutputs) {
  const std::vector<float> a = {0, 1, 2, 3, 4, 5, 6, 7}, b = {10, 11, 12};
  const std::vector<std::span<const float>> from = {a, b};
  std::vector<float> outA(8, -1.0f);
  float* to[] = {outA.data(), nullptr};
  const int64_t numel[] = {8, 3};
  const std::vector<WrittenRun> runs = {{0, 1, 3, 2}, {0, 6, 2, 1}, {1, 0, 3, 1}};
  copyWrittenRuns(runs, from, to, numel);
  EXPECT_EQ(outA, (std::vector<float>{-1, 1, -1, 3, -1, 5, 6, 7}));
}

TEST(WrittenRuns, ARunPastTheResultOrTheOutputIsRefusedByName) {
  const std::vector<float> a = {0, 1, 2, 3};
  const std::vector<std::span<const float>> from = {a};
  std::vector<float> out(4);
  float* to[] = {out.data()};
  const int64_t numel[] = {4};
  const std::vector<WrittenRun> past = {{0, 2, 2, 2}};  // elements 2 and 4
  try {
    copyWrittenRuns(past, from, to, numel);
    FAIL() << "a run past the end was copied";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("elements 2..4 (stride 2) of output 0"), std::string::npos) << e.what();
  }
  const std::vector<WrittenRun> noSuchOutput = {{3, 0, 1, 1}};
  EXPECT_THROW(copyWrittenRuns(noSuchOutput, from, to, numel), std::out_of_range);
}

}  // namespace
}  // namespace rammer::kernels

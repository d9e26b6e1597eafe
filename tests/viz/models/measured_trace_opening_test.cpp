// Opening a measured trace beside a plan, the part off the UI thread (issue
// #44 item 5: the session's background work in its own small pieces): a
// committed H100 trace of sample_cnn is matched to the sample's wavefront
// plan by operator name; a missing file is an error naming it.
#include "viz/models/measured_trace_opening.h"

#include <gtest/gtest.h>

#include "tests/core/codegen/codegen_fixtures.h"

namespace rammer::viz {
namespace {

TEST(MeasuredTraceOpening, ACommittedTraceMatchesThePlanAndAMissingFileIsAnError) {
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = testing::planSample(g, "wavefront");
  const std::string runs = RAMMER_SOURCE_DIR "/tests/data/gpu_traces/2026-11-26-h100/runs/";
  const OpenedMeasuredTrace opened = openMeasuredTraceFor(runs + "sample_cnn.wavefront.trace.json.xz", plan);
  ASSERT_TRUE(opened.errors.empty()) << opened.errors.front().message;
  ASSERT_NE(opened.trace, nullptr);
  ASSERT_FALSE(opened.trace->tasks.empty());
  for (const sim::TaskEvent& t : opened.trace->tasks) {
    ASSERT_GE(t.task.op, 0);
    ASSERT_LT(static_cast<size_t>(t.task.op), plan.ops.size());
    EXPECT_FALSE(plan.ops[static_cast<size_t>(t.task.op)].isView) << plan.ops[static_cast<size_t>(t.task.op)].name;
  }

  const std::string missing = std::string(RAMMER_BINARY_DIR) + "/no_such_trace.json";
  const OpenedMeasuredTrace none = openMeasuredTraceFor(missing, plan);
  EXPECT_EQ(none.trace, nullptr);
  ASSERT_FALSE(none.errors.empty());
  const std::string text = ir::formatDiagnostic(none.errors.front());
  EXPECT_NE(text.find("no_such_trace.json"), std::string::npos) << text;
}

}  // namespace
}  // namespace rammer::viz

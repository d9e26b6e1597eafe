// Persistent cells where they pay (issue #45 item 3): the Schedule stage
// plans a sequence model with its cells' weights kept on chip and without,
// and keeps the plan its cost model predicts faster. The analytic model
// prices a cell's rTask by its traffic, which the resident slice removes;
// the calibrated one (fitted on the committed H100 leases) prices each
// rTask mostly by a fixed time, so the pinning's queueing outweighs the
// saved traffic there.
#include "core/pipeline/resident_choice.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/pipeline/pipeline.h"
#include "core/schedule/validator.h"
#include "core/sim/calibration.h"

namespace rammer::pipeline {
namespace {

namespace fs = std::filesystem;

fs::path paperModel(const std::string& name) { return fs::path(RAMMER_BINARY_DIR) / "samples" / (name + ".onnx"); }

struct Planned {
  std::shared_ptr<const schedule::Plan> plan;
  std::shared_ptr<const sim::Trace> predicted;
  std::optional<ResidentChoice> choice;
  std::shared_ptr<const ir::Graph> graph;
};
Planned planned(const std::string& model, std::shared_ptr<const sim::CostModel> cost) {
  Options o;
  o.modelPath = paperModel(model).string();
  o.policy = schedule::PolicyId::Wavefront;
  o.costModel = std::move(cost);
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Simulate);
  EXPECT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  return {p.artifacts().plan, p.artifacts().predicted, p.artifacts().residentCells, p.artifacts().optimized};
}

TEST(ResidentChoice, TheAnalyticModelKeepsSeq2seqsCellWeightsOnChipAndThePlanIsValid) {
  if (!fs::exists(paperModel("seq2seq"))) GTEST_SKIP() << "the paper samples are not built";
  const Planned p = planned("seq2seq", defaultCostModel());
  ASSERT_TRUE(p.plan && p.predicted && p.choice);
  EXPECT_TRUE(p.choice->resident);
  EXPECT_EQ(p.choice->cells, residentCells(*p.plan));
  EXPECT_GT(p.choice->cells, 0);
  EXPECT_LT(p.choice->residentUs, p.choice->reloadingUs);
  EXPECT_NEAR(p.choice->residentUs, p.predicted->totalUs, 1e-6);
  EXPECT_TRUE(schedule::checkPlan(*p.plan, *p.graph).ok());
}

TEST(ResidentChoice, WhereTheCalibratedModelPredictsThePinnedPlanSlowerTheCellsReloadTheirWeights) {
  if (!fs::exists(paperModel("seq2seq"))) GTEST_SKIP() << "the paper samples are not built";
  auto c = sim::loadCalibration(RAMMER_SOURCE_DIR "/resources/calibrations/h100.json");
  ASSERT_TRUE(c.ok()) << c.errorText();
  const auto model =
      std::make_shared<const sim::CalibratedCostModel>(std::make_shared<const sim::Calibration>(std::move(c).value()));
  const Planned p = planned("seq2seq", model);
  ASSERT_TRUE(p.plan && p.predicted && p.choice);
  EXPECT_FALSE(p.choice->resident);
  EXPECT_GT(p.choice->residentUs, p.choice->reloadingUs);
  EXPECT_EQ(residentCells(*p.plan), 0);
  EXPECT_NEAR(p.choice->reloadingUs, p.predicted->totalUs, 1e-6);
}

TEST(ResidentChoice, APlanWithoutResidentCellsIsLeftAlone) {
  schedule::Plan plan;
  bool planned = false;
  EXPECT_FALSE(weighResidentCells(plan, [&]() -> ir::Result<schedule::Plan> {
    planned = true;
    return schedule::Plan{};
  }, defaultCostModel()));
  EXPECT_FALSE(planned);
}

}  // namespace
}  // namespace rammer::pipeline

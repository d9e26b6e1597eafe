// The rKernels dock's model: rows for the selected operator's candidates
// with the estimates the policies use; its flags agree with PlanBuilder's
// fastest / mostEfficient, and the sequential policy (which takes the
// fastest) chose the row flagged fastest. QAbstractItemModelTester checks
// the model through resets.
#include "viz/models/kernel_choice_model.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>

#include "core/sim/analytic_cost_model.h"
#include "tests/viz/editing_fixtures.h"

namespace rammer::viz {
namespace {

using viztest::opIndex;
using viztest::planSampleCnn;

TEST(KernelChoiceModelTest, FlagsAgreeWithPlanBuilderAndThePlansChoice) {
  const PipelineResult r = planSampleCnn("sequential");
  ASSERT_TRUE(r.artifacts.plan && r.artifacts.optimized);
  const schedule::Plan& plan = *r.artifacts.plan;
  auto catalog = KernelChoiceCatalog::build(*r.artifacts.optimized, plan.device);
  ASSERT_TRUE(catalog) << ir::formatDiagnostics(catalog.errors());
  // With the analytic model's rTask times, as the studio and `rammer schedule` plan.
  auto builder = schedule::PlanBuilder::start("check", *r.artifacts.optimized, plan.device, {},
                                              sim::policyOptions(std::make_shared<const sim::AnalyticCostModel>()));
  ASSERT_TRUE(builder);

  int multi = 0;
  for (size_t op = 0; op < plan.ops.size(); ++op) {
    const KernelChoices c = catalog->choicesFor(plan, static_cast<int>(op));
    EXPECT_EQ(c.op, static_cast<int>(op));
    EXPECT_EQ(c.node, plan.ops[op].name);
    if (plan.ops[op].isView) {
      EXPECT_TRUE(c.isView);
      EXPECT_TRUE(c.rows.empty());
      continue;
    }
    const auto& cs = builder->candidates(static_cast<int32_t>(op));
    ASSERT_EQ(c.rows.size(), cs.size());
    multi += cs.size() > 1 ? 1 : 0;
    int chosen = -1, fastest = -1, efficient = -1;
    for (size_t i = 0; i < c.rows.size(); ++i) {
      EXPECT_EQ(c.rows[i].name, cs[i].name);
      EXPECT_EQ(c.rows[i].rtasks, cs[i].numRTasks);
      if (c.rows[i].chosen) chosen = chosen < 0 ? static_cast<int>(i) : -2;
      if (c.rows[i].fastest) fastest = fastest < 0 ? static_cast<int>(i) : -2;
      if (c.rows[i].mostEfficient) efficient = efficient < 0 ? static_cast<int>(i) : -2;
    }
    EXPECT_EQ(fastest, static_cast<int>(builder->fastest(static_cast<int32_t>(op)))) << plan.ops[op].name;
    EXPECT_EQ(efficient, static_cast<int>(builder->mostEfficient(static_cast<int32_t>(op)))) << plan.ops[op].name;
    // RammerBase runs every operator with its fastest rKernel.
    EXPECT_EQ(chosen, fastest) << plan.ops[op].name;
    // The flagged rows hold the smallest op time / SM-time of the table.
    for (const auto& row : c.rows) {
      EXPECT_LE(c.rows[static_cast<size_t>(fastest)].estimate.opUs, row.estimate.opUs);
      EXPECT_LE(c.rows[static_cast<size_t>(efficient)].estimate.smUs, row.estimate.smUs);
      EXPECT_LE(row.efficiency, 1.0 + 1e-12);
    }
    EXPECT_DOUBLE_EQ(c.rows[static_cast<size_t>(efficient)].efficiency, 1.0);
  }
  EXPECT_GT(multi, 0) << "sample_cnn should have operators with several candidate rKernels";
  EXPECT_EQ(catalog->choicesFor(plan, -1).op, -1);
  EXPECT_EQ(catalog->choicesFor(plan, static_cast<int>(plan.ops.size())).op, -1);
}

TEST(KernelChoiceModelTest, PassesTheModelTesterAndShowsTheRows) {
  const PipelineResult r = planSampleCnn();
  ASSERT_TRUE(r.artifacts.plan && r.artifacts.optimized);
  auto catalog = KernelChoiceCatalog::build(*r.artifacts.optimized, r.artifacts.plan->device);
  ASSERT_TRUE(catalog);
  KernelChoiceModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  EXPECT_EQ(model.rowCount(), 0);
  const int stem = opIndex(*r.artifacts.plan, "stem");
  ASSERT_GE(stem, 0);
  model.setChoices(catalog->choicesFor(*r.artifacts.plan, stem));
  ASSERT_GT(model.rowCount(), 1);
  EXPECT_EQ(model.columnCount(), KernelChoiceModel::ColumnCount);
  int chosenRows = 0;
  for (int row = 0; row < model.rowCount(); ++row) {
    const KernelChoice* c = model.at(row);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(model.data(model.index(row, KernelChoiceModel::NameColumn)).toString().toStdString(), c->name);
    EXPECT_EQ(model.data(model.index(row, 0), KernelChoiceModel::KernelNameRole).toString().toStdString(), c->name);
    EXPECT_EQ(model.data(model.index(row, KernelChoiceModel::RTasksColumn), KernelChoiceModel::ValueRole).toLongLong(),
              c->rtasks);
    EXPECT_DOUBLE_EQ(model.data(model.index(row, KernelChoiceModel::OpTimeColumn), KernelChoiceModel::ValueRole).toDouble(),
                     c->estimate.opUs);
    const QString flags = model.data(model.index(row, KernelChoiceModel::FlagsColumn)).toString();
    EXPECT_EQ(flags.contains("chosen"), c->chosen);
    EXPECT_EQ(flags.contains("fastest"), c->fastest);
    EXPECT_EQ(flags.contains("most efficient"), c->mostEfficient);
    chosenRows += c->chosen ? 1 : 0;
    if (c->chosen) {
      EXPECT_EQ(c->name, r.artifacts.plan->ops[static_cast<size_t>(stem)].kernel.name);
    }
  }
  EXPECT_EQ(chosenRows, 1);
  EXPECT_FALSE(model.data(model.index(0, 0), Qt::DecorationRole).isValid());
  model.clear();
  EXPECT_EQ(model.rowCount(), 0);
}

}  // namespace
}  // namespace rammer::viz

// MetricsModel: prediction beside measurement, numbers worked out by hand
// from small traces; QAbstractItemModelTester through every reset.
#include "viz/models/metrics_model.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>

#include "core/schedule/plan.h"

namespace rammer::viz {
namespace {

// Two programs; 3 rTasks, one barrier of 2 us; 8 vEUs in the larger program.
std::shared_ptr<sim::Trace> trace(double totalUs, double eff) {
  auto t = std::make_shared<sim::Trace>();
  t->source = "predicted: hand";
  t->tasks.resize(3);
  sim::BarrierEvent b;
  b.startUs = 1;
  b.endUs = 3;
  t->barriers = {b};
  t->programs = {{0, 8, 1, 0, 5}, {1, 4, 1, 5, totalUs}};
  t->totalUs = totalUs;
  t->smEfficiency = eff;
  t->metrics["launch_overhead_us"] = 6;
  return t;
}

TEST(MetricsModel, PredictedBesideMeasured) {
  MetricsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  EXPECT_EQ(model.rowCount(), 0);
  model.setPredicted(trace(10, 0.25));
  const auto* latency = model.find(QStringLiteral("Latency (us)"));
  ASSERT_NE(latency, nullptr);
  EXPECT_DOUBLE_EQ(*latency->predicted, 10);
  EXPECT_FALSE(latency->measured);
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("SM efficiency (%)"))->predicted, 25);
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("Kernel launches (rPrograms)"))->predicted, 2);
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("rTasks"))->predicted, 3);
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("Barrier-rTasks"))->predicted, 1);
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("vEUs (largest program)"))->predicted, 8);
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("Barrier wait (vEU-us)"))->predicted, 2);
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("launch_overhead_us"))->predicted, 6);
  EXPECT_EQ(model.headerData(MetricsModel::MeasuredColumn, Qt::Horizontal).toString(), "Measured");

  auto gpu = trace(20, 0.5);
  gpu->measured = true;
  gpu->metrics["barriers"] = 1;  // shown by the Barrier-rTasks row already
  model.setMeasured(gpu, QStringLiteral("measured: H100"), {{"emulator_threads", 2}});
  EXPECT_EQ(model.find(QStringLiteral("barriers")), nullptr);
  latency = model.find(QStringLiteral("Latency (us)"));
  EXPECT_DOUBLE_EQ(*latency->measured, 20);
  EXPECT_EQ(model.headerData(MetricsModel::MeasuredColumn, Qt::Horizontal).toString(), "measured: H100");
  EXPECT_DOUBLE_EQ(*model.find(QStringLiteral("emulator_threads"))->measured, 2);
  EXPECT_FALSE(model.find(QStringLiteral("emulator_threads"))->predicted);
  // The ratio column: measured over predicted.
  int row = -1;
  for (int r = 0; r < model.rowCount(); ++r)
    if (model.index(r, MetricsModel::NameColumn).data().toString() == QStringLiteral("Latency (us)")) row = r;
  ASSERT_GE(row, 0);
  EXPECT_DOUBLE_EQ(model.index(row, MetricsModel::RatioColumn).data(MetricsModel::ValueRole).toDouble(), 2.0);
  EXPECT_EQ(model.index(row, MetricsModel::RatioColumn).data().toString(), "2.00x");
  EXPECT_EQ(model.index(row, MetricsModel::MeasuredColumn).data().toString(), "20");

  // An emulation is not comparable with the prediction: no ratio.
  model.setMeasured(trace(20, 0.5), QStringLiteral("emulated: CPU (no GPU)"));
  EXPECT_EQ(model.headerData(MetricsModel::MeasuredColumn, Qt::Horizontal).toString(), "emulated: CPU (no GPU)");
  EXPECT_EQ(model.index(row, MetricsModel::RatioColumn).data().toString(), "-");
  EXPECT_EQ(model.index(row, MetricsModel::MeasuredColumn).data().toString(), "20");

  model.clearMeasured();
  EXPECT_FALSE(model.find(QStringLiteral("Latency (us)"))->measured);
  EXPECT_EQ(model.find(QStringLiteral("emulator_threads")), nullptr);
}

TEST(MetricsModel, DramTrafficFromThePlan) {
  MetricsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  schedule::Plan plan;
  plan.ops.resize(3);
  plan.ops[0].kernel.bytes = 8e6;
  plan.ops[1].kernel.bytes = 4.3e6;
  plan.ops[2].isView = true;  // moves nothing
  plan.ops[2].kernel.bytes = 1e9;
  const QString name = QStringLiteral("DRAM traffic (predicted)");

  model.setPredicted(trace(10, 0.25));  // no plan: no row
  EXPECT_EQ(model.find(name), nullptr);
  model.setPredicted(trace(10, 0.25), &plan);
  const auto* dram = model.find(name);
  ASSERT_NE(dram, nullptr);
  EXPECT_DOUBLE_EQ(*dram->predicted, 12.3e6);
  EXPECT_FALSE(dram->measured);
  int row = -1;
  for (int r = 0; r < model.rowCount(); ++r)
    if (model.index(r, MetricsModel::NameColumn).data().toString() == name) row = r;
  ASSERT_GE(row, 0);
  EXPECT_EQ(model.index(row, MetricsModel::PredictedColumn).data().toString(), "12.3 MB");
  EXPECT_DOUBLE_EQ(model.index(row, MetricsModel::PredictedColumn).data(MetricsModel::ValueRole).toDouble(), 12.3e6);
  EXPECT_EQ(model.index(row, MetricsModel::MeasuredColumn).data().toString(), "-");
  // A measured run leaves the plan's figure in place; no trace, no figure.
  auto gpu = trace(20, 0.5);
  gpu->measured = true;
  model.setMeasured(gpu, QStringLiteral("measured: H100"));
  EXPECT_DOUBLE_EQ(*model.find(name)->predicted, 12.3e6);
  model.setPredicted(nullptr, &plan);
  EXPECT_EQ(model.find(name), nullptr);
}

}  // namespace
}  // namespace rammer::viz

// DiagnosticsModel and LogModel: rows and roles, checked by
// QAbstractItemModelTester through resets, inserts and the log's cap.
#include "viz/models/diagnostics_model.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>

#include "viz/models/log_model.h"

namespace rammer::viz {
namespace {

ir::Diagnostic diag(PipelineStage stage, ir::Severity severity, std::string message, std::string node = {}) {
  ir::Diagnostic d;
  d.stage = std::string(pipeline::stageName(stage));
  d.severity = severity;
  d.message = std::move(message);
  d.node = std::move(node);
  d.file = "m.onnx";
  return d;
}

TEST(DiagnosticsModel, RowsColumnsAndRoles) {
  DiagnosticsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_EQ(model.columnCount(), DiagnosticsModel::ColumnCount);
  model.setDiagnostics({diag(PipelineStage::Import, ir::Severity::Error, "unsupported op 'Foo'", "n1"),
                        diag(PipelineStage::Run, ir::Severity::Note, "ran on the CPU emulator")});
  ASSERT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.count(ir::Severity::Error), 1);
  EXPECT_EQ(model.count(ir::Severity::Note), 1);
  EXPECT_EQ(model.count(ir::Severity::Warning), 0);
  EXPECT_EQ(model.index(0, DiagnosticsModel::SeverityColumn).data().toString(), "error");
  EXPECT_EQ(model.index(0, DiagnosticsModel::StageColumn).data().toString(), "import");
  EXPECT_EQ(model.index(0, DiagnosticsModel::NodeColumn).data().toString(), "n1");
  EXPECT_EQ(model.index(0, DiagnosticsModel::MessageColumn).data().toString(), "unsupported op 'Foo'");
  EXPECT_EQ(model.index(0, 0).data(DiagnosticsModel::NodeRole).toString(), "n1");
  EXPECT_EQ(model.index(1, 0).data(DiagnosticsModel::SeverityRole).toInt(), static_cast<int>(ir::Severity::Note));
  EXPECT_EQ(model.index(1, 0).data(DiagnosticsModel::StageRole).toInt(), static_cast<int>(PipelineStage::Run));
  const QString tip = model.index(0, 3).data(Qt::ToolTipRole).toString();
  EXPECT_TRUE(tip.contains(QStringLiteral("m.onnx"))) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QStringLiteral("n1")));
  EXPECT_EQ(model.headerData(DiagnosticsModel::MessageColumn, Qt::Horizontal).toString(), "Message");
  EXPECT_EQ(model.at(5), nullptr);
  model.setDiagnostics({});
  EXPECT_EQ(model.rowCount(), 0);
}

// A validator diagnostic names the rTask it is about: the dock shows it and
// hands it on (op, rTask) so the timeline can outline it.
TEST(DiagnosticsModel, ADiagnosticNamingAnRTaskShowsIt) {
  DiagnosticsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  ir::Diagnostic d = diag(PipelineStage::Validate, ir::Severity::Error, "Dependency: relu[3] may start early", "relu");
  d.rtaskOp = 2;
  d.rtask = 3;
  model.setDiagnostics({d, diag(PipelineStage::Import, ir::Severity::Error, "bad file")});
  EXPECT_EQ(model.index(0, DiagnosticsModel::RTaskColumn).data().toString(), "#3");
  EXPECT_EQ(model.index(0, 0).data(DiagnosticsModel::RTaskRole).value<QList<int>>(), (QList<int>{2, 3}));
  EXPECT_EQ(model.index(1, DiagnosticsModel::RTaskColumn).data().toString(), "");
  EXPECT_FALSE(model.index(1, 0).data(DiagnosticsModel::RTaskRole).isValid());
  EXPECT_EQ(model.headerData(DiagnosticsModel::RTaskColumn, Qt::Horizontal).toString(), "rTask");
}

TEST(LogModel, AppendsAndKeepsTheNewestLines) {
  LogModel log(nullptr, 50);
  EXPECT_EQ(log.maxLines(), 50);
  QAbstractItemModelTester tester(&log, QAbstractItemModelTester::FailureReportingMode::Fatal);
  log.info(QStringLiteral("imported"));
  log.error(QStringLiteral("scheduling failed"));
  ASSERT_EQ(log.rowCount(), 2);
  EXPECT_EQ(log.index(1).data(LogModel::TextRole).toString(), "scheduling failed");
  EXPECT_EQ(log.index(1).data(LogModel::LevelRole).toInt(), static_cast<int>(LogModel::Level::Error));
  EXPECT_TRUE(log.index(0).data().toString().endsWith(QStringLiteral("imported")));
  EXPECT_TRUE(log.toPlainText().contains(QStringLiteral("error scheduling failed")));
  for (int i = 0; i < log.maxLines(); ++i) log.info(QStringLiteral("line %1").arg(i));
  EXPECT_EQ(log.rowCount(), log.maxLines());
  EXPECT_EQ(log.index(0).data(LogModel::TextRole).toString(), "line 0");
  EXPECT_EQ(log.index(log.maxLines() - 1).data(LogModel::TextRole).toString(),
            QStringLiteral("line %1").arg(log.maxLines() - 1));
  log.clear();
  EXPECT_EQ(log.rowCount(), 0);
}

}  // namespace
}  // namespace rammer::viz

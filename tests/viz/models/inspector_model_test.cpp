#include "viz/models/inspector_model.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QStringList>

#include "tests/viz/viz_test_graphs.h"

namespace rammer::viz {
namespace {

// Collects what QAbstractItemModelTester reports (it warns on a broken
// model) so a failure shows up as a test failure with the tester's words.
class ModelWarnings {
 public:
  ModelWarnings() { previous_ = qInstallMessageHandler(&ModelWarnings::handler); current() = this; }
  ~ModelWarnings() {
    qInstallMessageHandler(previous_);
    current() = nullptr;
  }
  const QStringList& messages() const { return messages_; }

 private:
  static ModelWarnings*& current() {
    static ModelWarnings* c = nullptr;
    return c;
  }
  static void handler(QtMsgType type, const QMessageLogContext&, const QString& msg) {
    if (type != QtDebugMsg && current()) current()->messages_ << msg;
  }
  QtMessageHandler previous_ = nullptr;
  QStringList messages_;
};

QString value(const InspectorModel& m, const QModelIndex& row) {
  return m.data(m.index(row.row(), InspectorModel::ValueColumn, row.parent())).toString();
}

schedule::Plan planFor(ir::NodeId node) {
  schedule::Plan plan;
  plan.policy = "wavefront";
  schedule::PlannedOp op;
  op.node = node;
  op.name = "conv";
  op.opType = "Conv";
  op.kernel.name = "conv_igemm_32x32";
  op.kernel.family = "conv_igemm";
  op.kernel.numRTasks = 8;
  op.kernel.block = {16, 8, 1};
  op.kernel.sharedBytes = 4096;
  op.kernel.flops = 2e6;
  op.kernel.bytes = 1e6;
  op.kernel.params = {{"tile_m", 32}, {"tile_n", 32}};
  op.kernelRule = "fastest";
  plan.ops.push_back(op);
  return plan;
}

TEST(InspectorModel, PassesTheModelTesterThroughEveryChange) {
  ModelWarnings warnings;
  const ir::Graph g = viztest::diamond();
  const ir::Graph fused = viztest::fusedDiamond();
  const schedule::Plan plan = planFor(0);
  InspectorModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Warning);
  m.setNode(g, 0, &plan);
  m.setNode(g, 3);
  m.setNode(fused, 1);
  m.setNode(g, 42);
  const schedule::Plan overviewPlan = planFor(0);
  m.setOverview(g, &overviewPlan);
  m.setOverview(fused);
  m.clear();
  m.setNode(g, 0, &plan);
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

TEST(InspectorModel, ShowsAttributesShapesParametersAndKernel) {
  const ir::Graph g = viztest::diamond();
  const schedule::Plan plan = planFor(0);
  InspectorModel m;
  m.setNode(g, 0, &plan);
  EXPECT_EQ(m.node(), 0);

  const QModelIndex op = m.section("Operator");
  ASSERT_TRUE(op.isValid());
  EXPECT_EQ(value(m, m.child(op, "Name")), "conv");
  EXPECT_EQ(value(m, m.child(op, "Category")), "Convolution");

  const QModelIndex attrs = m.section("Attributes");
  ASSERT_TRUE(attrs.isValid());
  EXPECT_EQ(m.rowCount(attrs), 2);
  EXPECT_EQ(value(m, m.child(attrs, "kernel_shape")), QString::fromStdString(ir::attrToString(std::vector<int64_t>{3, 3})));

  const QModelIndex inputs = m.section("Inputs");
  EXPECT_EQ(value(m, m.child(inputs, "x")), QString::fromUtf8("float32 1\u00D73\u00D78\u00D78"));
  EXPECT_EQ(value(m, m.child(m.child(inputs, "x"), "From")), "graph input");
  const QModelIndex outputs = m.section("Outputs");
  EXPECT_EQ(value(m, m.child(m.child(outputs, "conv"), "To")), "relu_a, sigmoid_b");

  // w[i] = (i % 7) - 3 over 108 elements: min -3, max 3; zeros where i%7==3.
  const QModelIndex params = m.section("Parameters");
  ASSERT_TRUE(params.isValid());
  const QModelIndex w = m.child(params, "w");
  ASSERT_TRUE(w.isValid());
  EXPECT_EQ(value(m, m.child(w, "Elements")), "108");
  EXPECT_EQ(value(m, m.child(w, "Min")), "-3");
  EXPECT_EQ(value(m, m.child(w, "Max")), "3");
  int zeros = 0;
  double sum = 0;
  for (int i = 0; i < 108; ++i) {
    zeros += (i % 7 == 3);
    sum += (i % 7) - 3;
  }
  EXPECT_TRUE(value(m, m.child(w, "Zeros")).startsWith(QString::number(zeros) + " ("));
  EXPECT_EQ(value(m, m.child(w, "Mean")), QString::number(sum / 108, 'g', 6));

  const QModelIndex k = m.section("rKernel");
  ASSERT_TRUE(k.isValid());
  EXPECT_EQ(value(m, k), "conv_igemm_32x32");
  EXPECT_EQ(value(m, m.child(k, "Chosen because")), "fastest");
  EXPECT_EQ(value(m, m.child(k, "rTasks")), "8");
  EXPECT_EQ(value(m, m.child(k, "Threads per rTask")), QString::fromUtf8("16\u00D78\u00D71 = 128"));
  EXPECT_EQ(value(m, m.child(k, "Shared memory")), "4.00 KiB");
  EXPECT_EQ(value(m, m.child(k, "FLOPs")), "2.00 MFLOP");
  EXPECT_EQ(m.rowCount(m.child(k, "Parameters")), 2);
}

// Nothing selected: the model at a glance and the plan's figures, not an
// empty table (issue #29 item 3).
TEST(InspectorModel, OverviewSummarizesTheModelAndThePlan) {
  const ir::Graph g = viztest::diamond();
  const schedule::Plan plan = planFor(0);
  InspectorModel m;
  m.setOverview(g);
  const QModelIndex model = m.section("Model");
  ASSERT_TRUE(model.isValid());
  EXPECT_EQ(value(m, m.child(model, "Nodes")), QString::number(g.numNodes()));
  EXPECT_EQ(value(m, m.child(m.child(model, "Inputs"), "x")), QString::fromUtf8("float32 1\u00D73\u00D78\u00D78"));
  EXPECT_TRUE(value(m, m.child(model, "Parameters")).contains("108")) << value(m, m.child(model, "Parameters")).toStdString();
  EXPECT_EQ(value(m, m.child(m.child(model, "Op types"), "Conv")), "1");
  EXPECT_FALSE(m.section("Plan").isValid()) << "no plan yet";
  EXPECT_EQ(m.node(), ir::kNone);

  sim::Trace predicted;
  predicted.totalUs = 12.5;
  predicted.smEfficiency = 0.5;
  m.setOverview(g, &plan, &predicted);
  const QModelIndex p = m.section("Plan");
  ASSERT_TRUE(p.isValid());
  EXPECT_EQ(value(m, p), "wavefront on ");
  EXPECT_EQ(value(m, m.child(p, "Programs")), "0");  // a hand-made plan of one operator and no rProgram
  EXPECT_EQ(value(m, m.child(p, "SM efficiency")), "50.0 %");
  EXPECT_EQ(value(m, m.child(p, "Predicted latency")), "12.5 us");
}

TEST(InspectorModel, NodeWithoutPlanOrParametersHasNoSuchSections) {
  const ir::Graph g = viztest::diamond();
  InspectorModel m;
  m.setNode(g, 1);  // relu_a
  EXPECT_FALSE(m.section("rKernel").isValid());
  EXPECT_FALSE(m.section("Parameters").isValid());
  EXPECT_FALSE(m.section("Attributes").isValid());
  EXPECT_EQ(value(m, m.child(m.child(m.section("Inputs"), "conv"), "From")), "conv");

  const schedule::Plan plan = planFor(0);  // has conv only
  m.setNode(g, 1, &plan);
  EXPECT_EQ(value(m, m.section("rKernel")), "not in the plan");
}

TEST(InspectorModel, FusedGroupShowsExpressionAndMembers) {
  const ir::Graph g = viztest::fusedDiamond();
  InspectorModel m;
  m.setNode(g, 1);
  const QModelIndex op = m.section("Operator");
  EXPECT_EQ(value(m, m.child(op, "Expression")), "(add (relu x0) (sigmoid x0))");
  const QModelIndex members = m.child(op, "Fused ops");
  ASSERT_EQ(m.rowCount(members), 3);
  EXPECT_EQ(value(m, m.child(members, "Sigmoid")), "sigmoid_b");
  // expr/fused_nodes are not repeated as raw attributes.
  EXPECT_FALSE(m.section("Attributes").isValid());
}

TEST(InspectorModel, UnknownNodeIsAProblemRowNotACrash) {
  const ir::Graph g = viztest::diamond();
  InspectorModel m;
  m.setNode(g, -5);
  EXPECT_EQ(m.rowCount(), 1);
  EXPECT_TRUE(value(m, m.section("Problem")).contains("-5"));
  EXPECT_EQ(m.node(), ir::kNone);
  m.clear();
  EXPECT_EQ(m.rowCount(), 0);
}

}  // namespace
}  // namespace rammer::viz

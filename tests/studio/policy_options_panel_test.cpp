// The studio sets every plan choice the CLI has (issue #29 item 3): the
// CLI's plan options, enumerated from the parser itself, each have a
// control in the main window; the policy's own options sit in one labelled
// place that shows only that policy's; and a choice made there reaches the
// pipeline through the same pipeline::PlanChoices.
#include "app/studio/policy_options_panel.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <map>

#include "app/cli/plan_loading.h"
#include "app/studio/main_window.h"
#include "core/schedule/policy_registry.h"
#include "viz/models/studio_session.h"

namespace rammer::studio {
namespace {

constexpr int kWaitMs = 120000;

// The control (object name) that sets each CLI plan option in the studio.
const std::map<std::string, QString> kStudioControl = {
    {"--policy", "policyPicker"},          {"--device", "devicePicker"},
    {"--batch", "batchPicker"},            {"--schedule", "loadEdits"},
    {"--fuse-attention", "attentionPicker"}, {"--fuse-epilogues", "epiloguePicker"},
    {"--keep-persistent", "keepPersistentCheck"}, {"--reload-weights", "reloadWeightsCheck"},
    {"--ios-r", "iosRPicker"},             {"--ios-s", "iosSPicker"},
    {"--ios-variant", "iosVariantPicker"}, {"--ios-programs", "iosProgramsPicker"},
    {"--gt-order", "gtOrderPicker"},       {"--gt-budget", "gtBudgetPicker"},
};

TEST(PolicyOptions, EveryPlanOptionOfTheCliHasAControlInTheStudio) {
  CLI::App app;
  pipeline::PlanChoices options;
  cli::addPlanOptions(&app, options);
  MainWindowOptions o;
  o.settingsFile = QStringLiteral("%1/policy_options_test.ini").arg(QStringLiteral(RAMMER_BINARY_DIR));
  o.capability = runtime::CudaCapability{};
  MainWindow window(o);
  size_t seen = 0;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty() || opt->get_lnames().front() == "help") continue;
    const std::string name = "--" + opt->get_lnames().front();
    ++seen;
    auto it = kStudioControl.find(name);
    ASSERT_NE(it, kStudioControl.end()) << name << ": a CLI plan option the studio cannot set";
    const bool found = window.findChild<QWidget*>(it->second) || window.findChild<QAction*>(it->second);
    EXPECT_TRUE(found) << name << ": no control named " << it->second.toStdString();
  }
  EXPECT_EQ(seen, kStudioControl.size());
}

// The policies' own controls are made from the registry
// (schedule::policyOptions): each shows its option's help text and flag,
// and a picker offers exactly its choices; the CLI's help is the same text.
TEST(PolicyOptions, EachPolicyOptionsControlAndCliHelpReadTheRegistry) {
  viz::StudioSession session;
  PolicyOptionsPanel panel(&session);
  CLI::App app;
  pipeline::PlanChoices options;
  cli::addPlanOptions(&app, options);
  size_t seen = 0;
  for (schedule::PolicyId id : schedule::policyIds())
    for (const schedule::PolicyOption& o : schedule::policyOptions(id)) {
      ++seen;
      const std::string flag = "--" + o.flag;
      auto* control = panel.findChild<QWidget*>(kStudioControl.at(flag));
      ASSERT_NE(control, nullptr) << flag;
      EXPECT_TRUE(control->toolTip().contains(QString::fromStdString(o.description))) << flag;
      EXPECT_TRUE(control->toolTip().contains(QString::fromStdString(flag))) << flag;
      if (auto* picker = qobject_cast<QComboBox*>(control)) {
        QStringList items;
        for (int i = 0; i < picker->count(); ++i) items << picker->itemText(i);
        QStringList want;
        for (const std::string& c : o.choices) want << QString::fromStdString(c);
        EXPECT_EQ(items, want) << flag;
      }
      const CLI::Option* cliOption = app.get_option_no_throw(flag);
      ASSERT_NE(cliOption, nullptr) << flag;
      EXPECT_EQ(cliOption->get_description(), o.description) << flag;
    }
  EXPECT_EQ(seen, 6u);
}

struct Loaded {
  viz::StudioSession session;
  PolicyOptionsPanel panel{&session};
  void open(const QString& policy) {
    session.setPolicy(policy);
    QSignalSpy done(&session, &viz::StudioSession::jobFinished);
    session.openModel(QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx"), 1);
    ASSERT_TRUE(done.wait(kWaitMs));
  }
  void waitForJob() {
    QSignalSpy done(&session, &viz::StudioSession::jobFinished);
    ASSERT_TRUE(done.wait(kWaitMs));
  }
};

int fusedConvs(const ir::Graph& g) {
  int n = 0;
  for (size_t i = 0; i < g.numNodeSlots(); ++i)
    if (const ir::Node& node = g.node(static_cast<ir::NodeId>(i)); !node.removed && node.opType == "FusedConv") ++n;
  return n;
}

TEST(PolicyOptions, OnlyTheCurrentPoliciesOptionsAreShown) {
  Loaded l;
  l.open(QStringLiteral("wavefront"));
  EXPECT_TRUE(l.panel.iosGroup()->isHidden());
  EXPECT_TRUE(l.panel.graphTurboGroup()->isHidden());
  l.session.setPolicy(QStringLiteral("graphturbo"));
  EXPECT_TRUE(l.panel.iosGroup()->isHidden());
  EXPECT_FALSE(l.panel.graphTurboGroup()->isHidden());
  l.session.setPolicy(QStringLiteral("ios"));
  EXPECT_FALSE(l.panel.iosGroup()->isHidden());
  EXPECT_TRUE(l.panel.graphTurboGroup()->isHidden());
  l.session.waitForWorkers();
}

// A fusion mode set in the panel re-optimizes: epilogue fusion off leaves
// no FusedConv in the graph the plan runs, on brings them back.
TEST(PolicyOptions, AFusionModeChosenInThePanelReachesThePipeline) {
  Loaded l;
  l.open(QStringLiteral("wavefront"));
  ASSERT_TRUE(l.session.graph());
  ASSERT_GT(fusedConvs(*l.session.graph()), 0) << "sample_cnn's convolutions fuse their ReLU by default";
  auto* epilogues = l.panel.findChild<QComboBox*>(QStringLiteral("epiloguePicker"));
  ASSERT_TRUE(epilogues);
  epilogues->setCurrentText(QStringLiteral("off"));
  emit epilogues->activated(epilogues->currentIndex());
  EXPECT_EQ(l.session.planChoices().epilogues, pipeline::EpilogueFusion::Unfused);
  l.waitForJob();
  EXPECT_EQ(fusedConvs(*l.session.graph()), 0);
  // The IOS options wait for an IOS plan: nothing is re-planned.
  auto* r = l.panel.findChild<QSpinBox*>(QStringLiteral("iosRPicker"));
  ASSERT_TRUE(r);
  r->setValue(2);
  emit r->editingFinished();
  EXPECT_EQ(l.session.planChoices().ios.maxGroupOps, 2);
  EXPECT_FALSE(l.session.isBusy());
  l.session.waitForWorkers();
}

// Reloading recurrent weights is a choice of every policy: the box reaches
// the plan choices and plans again.
TEST(PolicyOptions, TheReloadWeightsBoxPlansAgain) {
  Loaded l;
  l.open(QStringLiteral("wavefront"));
  auto* reload = l.panel.findChild<QCheckBox*>(QStringLiteral("reloadWeightsCheck"));
  ASSERT_TRUE(reload);
  EXPECT_FALSE(reload->isChecked());
  EXPECT_TRUE(l.session.planChoices().residentCells);
  reload->setChecked(true);
  EXPECT_FALSE(l.session.planChoices().residentCells);
  EXPECT_TRUE(l.session.isBusy());
  l.waitForJob();
  l.session.waitForWorkers();
}

}  // namespace
}  // namespace rammer::studio

#include "app/studio/policy_options_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/schedule/policy_registry.h"
#include "viz/models/studio_session.h"

namespace rammer::studio {

namespace {

const QStringList kModes = {QStringLiteral("auto"), QStringLiteral("on"), QStringLiteral("off")};

template <class Mode>
int modeIndex(Mode m) {
  return m == Mode::Auto ? 0 : (m == Mode::Fused ? 1 : 2);
}
template <class Mode>
Mode modeAt(int i) {
  return i == 1 ? Mode::Fused : (i == 2 ? Mode::Unfused : Mode::Auto);
}

QComboBox* picker(QWidget* parent, const char* name, const QStringList& items, const QString& tip) {
  auto* c = new QComboBox(parent);
  c->setObjectName(QString::fromLatin1(name));
  c->addItems(items);
  c->setToolTip(tip);
  return c;
}

QSpinBox* spin(QWidget* parent, const char* name, int lo, int hi, const QString& tip) {
  auto* s = new QSpinBox(parent);
  s->setObjectName(QString::fromLatin1(name));
  s->setRange(lo, hi);
  s->setToolTip(tip);
  return s;
}

}  // namespace

PolicyOptionsPanel::PolicyOptionsPanel(viz::StudioSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
  setObjectName(QStringLiteral("policyOptionsPanel"));
  auto* all = new QGroupBox(tr("Every policy"), this);
  auto* allForm = new QFormLayout(all);
  attention_ = picker(all, "attentionPicker", kModes,
                      tr("Attention as one flash-attention rOperator: on, off, or auto (plan both ways, keep the one "
                         "predicted faster) — --fuse-attention"));
  epilogues_ = picker(all, "epiloguePicker", kModes,
                      tr("Bias, activation and residual add into the epilogue of the Conv, Gemm or MatMul they read: "
                         "on, off, or auto (on except under ios and graphturbo) — --fuse-epilogues"));
  keepPersistent_ = new QCheckBox(tr("Keep persistent programs"), all);
  keepPersistent_->setObjectName(QStringLiteral("keepPersistentCheck"));
  keepPersistent_->setToolTip(tr("Keep every program the policy planned persistent, even one the cost model predicts "
                                 "slower than its operators as launches (by default planned as launches) — "
                                 "--keep-persistent"));
  allForm->addRow(tr("Attention fusion"), attention_);
  allForm->addRow(tr("Epilogue fusion"), epilogues_);
  allForm->addRow(QString(), keepPersistent_);
  reloadWeights_ = new QCheckBox(tr("Reload recurrent weights every step"), all);
  reloadWeights_->setObjectName(QStringLiteral("reloadWeightsCheck"));
  reloadWeights_->setToolTip(tr("Plan recurrent cells that read their weights from global memory every step (by "
                                "default a cell may keep its slice of them in shared memory, its rTasks pinned to one "
                                "vEU, where the cost model predicts it faster) — --reload-weights"));
  allForm->addRow(QString(), reloadWeights_);

  // The policies' own options: labels, tooltips and choices from the
  // registry (schedule::policyOptions), as the CLI's help has them.
  auto option = [](schedule::PolicyId id, const char* flag) -> const schedule::PolicyOption& {
    return schedule::policyOption(id, flag);
  };
  auto tip = [](const schedule::PolicyOption& o) {
    return QString::fromStdString(o.description) + QStringLiteral(" — --") + QString::fromStdString(o.flag);
  };
  auto label = [](const schedule::PolicyOption& o) { return QString::fromStdString(o.label); };
  auto choices = [](const schedule::PolicyOption& o) {
    QStringList l;
    for (const std::string& c : o.choices) l << QString::fromStdString(c);
    return l;
  };

  ios_ = new QGroupBox(tr("IOS"), this);
  ios_->setObjectName(QStringLiteral("iosOptions"));
  auto* iosForm = new QFormLayout(ios_);
  const schedule::PolicyOption& r = option(schedule::PolicyId::Ios, "ios-r");
  const schedule::PolicyOption& s = option(schedule::PolicyId::Ios, "ios-s");
  const schedule::PolicyOption& variant = option(schedule::PolicyId::Ios, "ios-variant");
  const schedule::PolicyOption& programs = option(schedule::PolicyId::Ios, "ios-programs");
  iosR_ = spin(ios_, "iosRPicker", 1, 16, tip(r));
  iosS_ = spin(ios_, "iosSPicker", 1, 64, tip(s));
  iosVariant_ = picker(ios_, "iosVariantPicker", choices(variant), tip(variant));
  iosPrograms_ = picker(ios_, "iosProgramsPicker", choices(programs), tip(programs));
  iosForm->addRow(label(r), iosR_);
  iosForm->addRow(label(s), iosS_);
  iosForm->addRow(label(variant), iosVariant_);
  iosForm->addRow(label(programs), iosPrograms_);

  graphTurbo_ = new QGroupBox(tr("GraphTurbo"), this);
  graphTurbo_->setObjectName(QStringLiteral("graphTurboOptions"));
  auto* gtForm = new QFormLayout(graphTurbo_);
  const schedule::PolicyOption& order = option(schedule::PolicyId::GraphTurbo, "gt-order");
  const schedule::PolicyOption& budget = option(schedule::PolicyId::GraphTurbo, "gt-budget");
  gtOrder_ = picker(graphTurbo_, "gtOrderPicker", choices(order), tip(order));
  gtBudget_ = spin(graphTurbo_, "gtBudgetPicker", 0, 1024, tip(budget));
  gtBudget_->setSpecialValueText(tr("default"));
  gtBudget_->setSuffix(tr(" KB"));
  gtForm->addRow(label(order), gtOrder_);
  gtForm->addRow(label(budget), gtBudget_);

  none_ = new QLabel(this);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(all);
  layout->addWidget(ios_);
  layout->addWidget(graphTurbo_);
  layout->addWidget(none_);

  for (QComboBox* c : {attention_, epilogues_, iosVariant_, iosPrograms_, gtOrder_})
    connect(c, &QComboBox::activated, this, [this](int) { apply(); });
  for (QSpinBox* s : {iosR_, iosS_, gtBudget_}) connect(s, &QSpinBox::editingFinished, this, [this] { apply(); });
  for (QCheckBox* b : {keepPersistent_, reloadWeights_}) connect(b, &QCheckBox::toggled, this, [this](bool) { apply(); });
  connect(session_, &viz::StudioSession::settingsChanged, this, &PolicyOptionsPanel::sync);
  sync();
}

void PolicyOptionsPanel::sync() {
  syncing_ = true;
  const pipeline::PlanChoices c = session_->planChoices();
  attention_->setCurrentIndex(modeIndex(c.attention));
  epilogues_->setCurrentIndex(modeIndex(c.epilogues));
  keepPersistent_->setChecked(!c.launchFallback);
  reloadWeights_->setChecked(!c.residentCells);
  iosR_->setValue(c.ios.maxGroupOps);
  iosS_->setValue(c.ios.maxGroups);
  iosVariant_->setCurrentText(QString::fromStdString(c.ios.variant));
  iosPrograms_->setCurrentText(QString::fromStdString(c.ios.programs));
  gtOrder_->setCurrentText(QString::fromStdString(c.graphturbo.order));
  gtBudget_->setValue(static_cast<int>(c.graphturbo.budgetBytes / 1024));
  const bool ios = c.policy == schedule::PolicyId::Ios, gt = c.policy == schedule::PolicyId::GraphTurbo;
  ios_->setVisible(ios);
  graphTurbo_->setVisible(gt);
  none_->setVisible(!ios && !gt);
  none_->setText(tr("%1 has no options of its own").arg(QString::fromStdString(schedule::policyName(c.policy))));
  syncing_ = false;
}

void PolicyOptionsPanel::apply() {
  if (syncing_) return;
  pipeline::PlanChoices c = session_->planChoices();
  c.attention = modeAt<pipeline::AttentionFusion>(attention_->currentIndex());
  c.epilogues = modeAt<pipeline::EpilogueFusion>(epilogues_->currentIndex());
  c.launchFallback = !keepPersistent_->isChecked();
  c.residentCells = !reloadWeights_->isChecked();
  c.ios.maxGroupOps = iosR_->value();
  c.ios.maxGroups = iosS_->value();
  c.ios.variant = iosVariant_->currentText().toStdString();
  c.ios.programs = iosPrograms_->currentText().toStdString();
  c.graphturbo.order = gtOrder_->currentText().toStdString();
  c.graphturbo.budgetBytes = int64_t{gtBudget_->value()} * 1024;
  session_->setPolicyOptions(c);
}

}  // namespace rammer::studio

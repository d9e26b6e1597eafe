#include "app/studio/pipeline_toolbar.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QMenu>
#include <QSpinBox>
#include <QToolButton>
#include <QWidgetAction>
#include <algorithm>

#include "app/studio/policy_options_panel.h"
#include "core/schedule/policy_registry.h"
#include "viz/models/studio_session.h"

namespace rammer::studio {

namespace {
const QString kDeviceFromFile = QStringLiteral("From file…");
}

PipelineToolBar::PipelineToolBar(viz::StudioSession* session, QAction* open, const QList<QAction*>& run,
                                 QWidget* parent)
    : QToolBar(tr("Pipeline"), parent), session_(session) {
  setObjectName(QStringLiteral("PipelineToolBar"));
  addAction(open);
  addSeparator();

  addWidget(new QLabel(tr(" Policy "), this));
  policy_ = new QComboBox(this);
  policy_->setObjectName(QStringLiteral("policyPicker"));
  // Names, papers and descriptions from the one registry (policy_registry.h).
  QStringList listed;
  for (const schedule::PolicyInfo& p : schedule::policyRegistry()) {
    const QString name = QString::fromUtf8(p.name.data(), static_cast<qsizetype>(p.name.size()));
    const QString paper = QString::fromUtf8(p.paper.data(), static_cast<qsizetype>(p.paper.size()));
    policy_->addItem(name);
    policy_->setItemData(policy_->count() - 1,
                         QString::fromUtf8(p.description.data(), static_cast<qsizetype>(p.description.size())),
                         Qt::ToolTipRole);
    listed << (paper.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, paper));
  }
  policy_->setToolTip(tr("Scheduling policy: %1").arg(listed.join(QStringLiteral(", "))));
  addWidget(policy_);
  connect(policy_, &QComboBox::activated, this, [this](int) {
    if (!syncing_) emit policyChosen(policy_->currentText());
  });

  // The policy's own options and the fusion modes, labelled, in one popup.
  options_ = new PolicyOptionsPanel(session_, this);
  auto* menu = new QMenu(this);
  auto* holder = new QWidgetAction(menu);
  holder->setDefaultWidget(options_);
  menu->addAction(holder);
  optionsButton_ = new QToolButton(this);
  optionsButton_->setObjectName(QStringLiteral("policyOptionsButton"));
  optionsButton_->setText(tr("Options"));
  optionsButton_->setToolTip(tr("Attention and epilogue fusion, and the chosen policy's own options (IOS, GraphTurbo)"));
  optionsButton_->setPopupMode(QToolButton::InstantPopup);
  optionsButton_->setMenu(menu);
  addWidget(optionsButton_);

  addWidget(new QLabel(tr(" Device "), this));
  device_ = new QComboBox(this);
  device_->setObjectName(QStringLiteral("devicePicker"));
  device_->addItems(viz::StudioSession::deviceIds());
  device_->addItem(kDeviceFromFile);
  device_->setToolTip(tr("The vDevice to schedule for (a preset, or a device JSON file)"));
  addWidget(device_);
  connect(device_, &QComboBox::activated, this, [this](int) {
    if (syncing_) return;
    if (device_->currentText() == kDeviceFromFile)
      chooseDeviceFile();
    else
      session_->setDevice(device_->currentText());
  });

  addWidget(new QLabel(tr(" Batch "), this));
  batch_ = new QSpinBox(this);
  batch_->setObjectName(QStringLiteral("batchPicker"));
  batch_->setRange(1, 4096);
  batch_->setToolTip(tr("Symbolic batch dimensions are bound to this size (re-imports the model)"));
  addWidget(batch_);
  connect(batch_, &QSpinBox::editingFinished, this, [this] {
    if (!syncing_ && session_->hasModel() && batch_->value() != session_->batch())
      session_->openModel(session_->modelPath(), batch_->value());
  });

  addSeparator();
  for (QAction* a : run) addAction(a);
}

void PipelineToolBar::sync() {
  syncing_ = true;
  const QString policy = session_->policy();
  if (policy_->findText(policy) < 0) policy_->addItem(policy);
  policy_->setCurrentText(policy);
  const QString device = session_->device();
  if (device_->findText(device) < 0) device_->insertItem(device_->count() - 1, device);
  device_->setCurrentText(device);
  if (session_->hasModel()) batch_->setValue(static_cast<int>(session_->batch()));
  syncing_ = false;
}

void PipelineToolBar::setBatch(int64_t batch) {
  syncing_ = true;
  batch_->setValue(static_cast<int>(std::clamp<int64_t>(batch, 1, batch_->maximum())));
  syncing_ = false;
}

int PipelineToolBar::batch() const { return batch_->value(); }

void PipelineToolBar::chooseDeviceFile() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Device description"), QString(), tr("Device JSON (*.json)"));
  if (path.isEmpty()) {
    sync();
    return;
  }
  session_->setDevice(path);
}

}  // namespace rammer::studio

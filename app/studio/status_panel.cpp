#include "app/studio/status_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

#include "viz/models/capability_report.h"

namespace rammer::studio {

StatusPanel::StatusPanel(QWidget* parent) : QWidget(parent) {
  message_ = new QLabel(this);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(true);
  cancel_ = new QToolButton(this);
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(tr("Stop the running job; nothing of it is applied"));
  capability_ = new QLabel(tr("probing GPU…"), this);
  capability_->setContentsMargins(12, 0, 4, 0);

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(message_, 1);
  layout->addWidget(progress_);
  layout->addWidget(cancel_);
  layout->addWidget(capability_);
  connect(cancel_, &QToolButton::clicked, this, &StatusPanel::cancelRequested);
  setBusy(false);
}

void StatusPanel::setBusy(bool busy, const QString& what) {
  progress_->setVisible(busy);
  cancel_->setVisible(busy);
  if (busy) {
    progress_->setValue(0);
    if (!what.isEmpty()) message_->setText(what + QStringLiteral("…"));
  }
}

void StatusPanel::setProgress(const QString& what, int percent) {
  progress_->setValue(std::clamp(percent, 0, 100));
  message_->setText(what);
}

void StatusPanel::setMessage(const QString& text) { message_->setText(text); }

void StatusPanel::setCapability(const viz::CapabilityReport& report) {
  capability_->setText(report.text);
  capability_->setToolTip(report.detail);
}

QString StatusPanel::message() const { return message_->text(); }
QString StatusPanel::capabilityText() const { return capability_->text(); }

}  // namespace rammer::studio

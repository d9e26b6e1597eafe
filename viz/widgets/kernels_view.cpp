#include "viz/widgets/kernels_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace rammer::viz {

KernelsView::KernelsView(QWidget* parent) : QWidget(parent), model_(new KernelChoiceModel(this)) {
  header_ = new QLabel(tr("Select an operator in the graph or the timeline."), this);
  header_->setWordWrap(true);
  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  pin_ = new QPushButton(tr("Pin"), this);
  pin_->setToolTip(tr("Use the selected rKernel for this operator (undoable)"));
  unpin_ = new QPushButton(tr("Policy's choice"), this);
  unpin_->setToolTip(tr("Remove the pin: the policy chooses again"));

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(pin_);
  buttons->addWidget(unpin_);
  buttons->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(header_);
  layout->addWidget(table_, 1);
  layout->addLayout(buttons);

  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) { pinRow(i.row()); });
  connect(pin_, &QPushButton::clicked, this, [this] {
    const auto rows = table_->selectionModel()->selectedRows();
    if (!rows.isEmpty()) pinRow(rows.first().row());
  });
  connect(unpin_, &QPushButton::clicked, this, [this] {
    if (model_->choices().op >= 0) emit unpinRequested(QString::fromStdString(model_->choices().node));
  });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &KernelsView::updateButtons);
  updateButtons();
}

void KernelsView::setChoices(KernelChoices choices) {
  model_->setChoices(std::move(choices));
  const KernelChoices& c = model_->choices();
  if (c.op < 0) {
    header_->setText(tr("Select an operator in the graph or the timeline."));
  } else if (c.isView) {
    header_->setText(tr("%1 (%2) is a view: it moves no data and has no rKernels.")
                         .arg(QString::fromStdString(c.node), QString::fromStdString(c.opType)));
  } else {
    header_->setText(tr("%1 (%2): %3 candidate(s); the plan's choice: %4")
                         .arg(QString::fromStdString(c.node), QString::fromStdString(c.opType))
                         .arg(c.rows.size())
                         .arg(QString::fromStdString(c.chosenRule)));
  }
  table_->resizeColumnsToContents();
  updateButtons();
}

void KernelsView::setMessage(const QString& text) {
  model_->clear();
  header_->setText(text);
  updateButtons();
}

QString KernelsView::headerText() const { return header_->text(); }

void KernelsView::pinRow(int row) {
  const KernelChoice* c = model_->at(row);
  if (!c) return;
  emit pinRequested(QString::fromStdString(model_->choices().node), QString::fromStdString(c->name));
}

void KernelsView::updateButtons() {
  pin_->setEnabled(table_->selectionModel()->hasSelection());
  unpin_->setEnabled(model_->choices().op >= 0 && model_->choices().chosenRule == "pinned");
}

}  // namespace rammer::viz

#include "app/studio/metrics_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "viz/models/metrics_model.h"

namespace rammer::studio {

MetricsPage::MetricsPage(viz::MetricsModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  view_ = new QTableView(this);
  view_->setModel(model);
  view_->verticalHeader()->hide();
  view_->setAlternatingRowColors(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->horizontalHeader()->setSectionResizeMode(viz::MetricsModel::NameColumn, QHeaderView::Stretch);
  for (int c = viz::MetricsModel::PredictedColumn; c < viz::MetricsModel::ColumnCount; ++c)
    view_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  source_ = new QLabel(this);
  source_->setWordWrap(true);
  source_->setContentsMargins(6, 2, 6, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(source_);
  layout->addWidget(view_, 1);
  connect(model, &QAbstractItemModel::modelReset, this, &MetricsPage::updateSource);
  updateSource();
}

QString MetricsPage::sourceText() const { return source_->text(); }

void MetricsPage::updateSource() {
  const QString predicted = model_->headerData(viz::MetricsModel::PredictedColumn, Qt::Horizontal, Qt::ToolTipRole).toString();
  if (predicted.isEmpty()) {
    source_->setText(tr("No plan yet."));
    return;
  }
  const QString measured = model_->measuredLabel();
  source_->setText(measured.isEmpty()
                       ? tr("Predicted (%1). Compile & Run (Ctrl+R) to measure.").arg(predicted)
                       : tr("Predicted (%1) beside %2.").arg(predicted, measured));
}

}  // namespace rammer::studio

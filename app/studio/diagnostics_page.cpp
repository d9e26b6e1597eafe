#include "app/studio/diagnostics_page.h"

#include <QApplication>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QLabel>
#include <QStyle>
#include <QTreeView>
#include <QVBoxLayout>

#include "viz/models/diagnostics_model.h"

namespace rammer::studio {

namespace {

// Adds the platform's error/warning/information icons to the severity
// column (the model is Qt Core only and has no icons).
class SeverityIcons : public QIdentityProxyModel {
 public:
  using QIdentityProxyModel::QIdentityProxyModel;
  QVariant data(const QModelIndex& index, int role) const override {
    if (role == Qt::DecorationRole && index.column() == viz::DiagnosticsModel::SeverityColumn) {
      const auto severity = static_cast<ir::Severity>(index.data(viz::DiagnosticsModel::SeverityRole).toInt());
      QStyle* style = QApplication::style();
      switch (severity) {
        case ir::Severity::Error: return style->standardIcon(QStyle::SP_MessageBoxCritical);
        case ir::Severity::Warning: return style->standardIcon(QStyle::SP_MessageBoxWarning);
        case ir::Severity::Note: return style->standardIcon(QStyle::SP_MessageBoxInformation);
      }
    }
    return QIdentityProxyModel::data(index, role);
  }
};

}  // namespace

DiagnosticsPage::DiagnosticsPage(viz::DiagnosticsModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  auto* proxy = new SeverityIcons(this);
  proxy->setSourceModel(model);
  view_ = new QTreeView(this);
  view_->setModel(proxy);
  view_->setRootIsDecorated(false);
  view_->setUniformRowHeights(false);
  view_->setWordWrap(true);
  view_->setAlternatingRowColors(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->header()->setStretchLastSection(true);
  view_->header()->setSectionResizeMode(viz::DiagnosticsModel::SeverityColumn, QHeaderView::ResizeToContents);
  view_->header()->setSectionResizeMode(viz::DiagnosticsModel::StageColumn, QHeaderView::ResizeToContents);
  view_->header()->setSectionResizeMode(viz::DiagnosticsModel::NodeColumn, QHeaderView::Interactive);
  view_->header()->setSectionResizeMode(viz::DiagnosticsModel::RTaskColumn, QHeaderView::ResizeToContents);
  summary_ = new QLabel(this);
  summary_->setContentsMargins(6, 2, 6, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(summary_);
  layout->addWidget(view_, 1);

  connect(model, &QAbstractItemModel::modelReset, this, &DiagnosticsPage::updateSummary);
  connect(view_, &QTreeView::activated, this, [this](const QModelIndex& index) {
    const QString node = index.data(viz::DiagnosticsModel::NodeRole).toString();
    if (!node.isEmpty()) emit nodeActivated(node);
    const QList<int> task = index.data(viz::DiagnosticsModel::RTaskRole).value<QList<int>>();
    if (task.size() == 2) emit rtaskActivated(task[0], task[1]);
  });
  updateSummary();
}

QString DiagnosticsPage::summaryText() const { return summary_->text(); }

void DiagnosticsPage::updateSummary() {
  const int errors = model_->count(ir::Severity::Error);
  const int warnings = model_->count(ir::Severity::Warning);
  const int notes = model_->count(ir::Severity::Note);
  if (errors + warnings + notes == 0) {
    summary_->setText(tr("No problems."));
    return;
  }
  QStringList parts;
  if (errors) parts << tr("%n error(s)", nullptr, errors);
  if (warnings) parts << tr("%n warning(s)", nullptr, warnings);
  if (notes) parts << tr("%n note(s)", nullptr, notes);
  summary_->setText(parts.join(QStringLiteral(", ")) +
                    tr(" \u2014 double-click a row that names a node to find it in the graph"));
}

}  // namespace rammer::studio

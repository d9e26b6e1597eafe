#include "app/studio/log_page.h"

#include <QApplication>
#include <QClipboard>
#include <QColor>
#include <QIdentityProxyModel>
#include <QListView>
#include <QScrollBar>
#include <QToolBar>
#include <QVBoxLayout>

#include "viz/models/log_model.h"

namespace rammer::studio {

namespace {

class LevelColours : public QIdentityProxyModel {
 public:
  using QIdentityProxyModel::QIdentityProxyModel;
  QVariant data(const QModelIndex& index, int role) const override {
    if (role == Qt::ForegroundRole) {
      switch (static_cast<viz::LogModel::Level>(index.data(viz::LogModel::LevelRole).toInt())) {
        case viz::LogModel::Level::Error: return QColor(0xc0, 0x1c, 0x28);
        case viz::LogModel::Level::Warning: return QColor(0xa8, 0x64, 0x00);
        case viz::LogModel::Level::Info: break;
      }
    }
    return QIdentityProxyModel::data(index, role);
  }
};

}  // namespace

LogPage::LogPage(viz::LogModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  auto* proxy = new LevelColours(this);
  proxy->setSourceModel(model);
  view_ = new QListView(this);
  view_->setModel(proxy);
  view_->setUniformItemSizes(true);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  QFont mono = view_->font();
  mono.setStyleHint(QFont::Monospace);
  mono.setFamily(QStringLiteral("monospace"));
  view_->setFont(mono);

  auto* bar = new QToolBar(this);
  bar->setIconSize(QSize(16, 16));
  bar->addAction(tr("Copy all"), this, [this] { QApplication::clipboard()->setText(model_->toPlainText()); });
  bar->addAction(tr("Clear"), model_, &viz::LogModel::clear);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(view_, 1);

  connect(model, &viz::LogModel::lineAdded, this, [this](int) {
    // Follow the tail only when the person is already at the bottom.
    QScrollBar* bar = view_->verticalScrollBar();
    if (bar->value() >= bar->maximum() - 2) view_->scrollToBottom();
  });
}

}  // namespace rammer::studio

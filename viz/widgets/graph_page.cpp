#include "viz/widgets/graph_page.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QToolBar>
#include <QVBoxLayout>

#include "viz/widgets/graph_view.h"

namespace rammer::viz {

GraphPage::GraphPage(QWidget* parent) : QWidget(parent), view_(new GraphView(this)) {
  auto* bar = new QToolBar(this);
  bar->setIconSize(QSize(16, 16));
  search_ = new QLineEdit(bar);
  search_->setPlaceholderText(tr("Search name, op or shape (op:Conv, 64x56x56)"));
  search_->setClearButtonEnabled(true);
  search_->setMinimumWidth(220);
  bar->addWidget(search_);
  auto* prev = bar->addAction(tr("Previous"), view_, &GraphView::previousMatch);
  prev->setToolTip(tr("Previous match (Shift+Enter)"));
  auto* next = bar->addAction(tr("Next"), view_, &GraphView::nextMatch);
  next->setToolTip(tr("Next match (Enter)"));
  matchLabel_ = new QLabel(bar);
  matchLabel_->setMinimumWidth(60);
  bar->addWidget(matchLabel_);
  bar->addSeparator();
  bar->addAction(view_->zoomOutAction());
  bar->addAction(view_->zoomInAction());
  bar->addAction(view_->fitAction());
  bar->addSeparator();
  bar->addAction(view_->expandAllAction());
  bar->addAction(view_->collapseAllAction());
  bar->addSeparator();
  bar->addAction(view_->foldLayersAction());
  bar->addAction(view_->unfoldLayersAction());

  status_ = new QLabel(this);
  status_->setContentsMargins(6, 2, 6, 2);
  status_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(status_);
  layout->addWidget(view_, 1);

  // Searching as one types: findNodes is linear and cheap even at 3,000 nodes.
  connect(search_, &QLineEdit::textChanged, view_, &GraphView::search);
  connect(search_, &QLineEdit::returnPressed, view_, &GraphView::nextMatch);
  connect(view_, &GraphView::searchChanged, this, &GraphPage::updateMatchLabel);
  connect(view_, &GraphView::layoutStarted, this, [this](int nodes) {
    status_->setText(tr("Laying out %1 boxes…").arg(nodes));
    status_->show();
  });
  connect(view_, &GraphView::layoutFinished, this, [this](double seconds) {
    status_->hide();
    view_->setToolTip(tr("Layout took %1 s").arg(seconds, 0, 'f', 2));
  });
  connect(view_, &GraphView::layoutFailed, this, [this](const QString& message) {
    status_->setText(tr("Layout failed: %1").arg(message));
    status_->show();
  });
}

void GraphPage::focusSearch() {
  search_->setFocus(Qt::ShortcutFocusReason);
  search_->selectAll();
}

void GraphPage::updateMatchLabel(int matches, int current) {
  if (search_->text().trimmed().isEmpty()) matchLabel_->clear();
  else if (matches == 0) matchLabel_->setText(tr("no match"));
  else matchLabel_->setText(tr("%1 / %2").arg(current + 1).arg(matches));
}

}  // namespace rammer::viz

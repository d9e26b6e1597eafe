#include "viz/widgets/inspector_view.h"

#include <QHeaderView>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>

#include "viz/models/inspector_model.h"

namespace rammer::viz {

namespace {

// Section titles (top-level rows) in bold, so the tree reads as a form.
class SectionDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

 protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    if (!index.parent().isValid()) option->font.setBold(true);
  }
};

}  // namespace

InspectorView::InspectorView(QWidget* parent)
    : QWidget(parent), model_(new InspectorModel(this)), tree_(new QTreeView(this)) {
  tree_->setModel(model_);
  tree_->setItemDelegate(new SectionDelegate(tree_));
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  tree_->header()->setSectionResizeMode(InspectorModel::PropertyColumn, QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tree_);
}

void InspectorView::showNode(const ir::Graph& graph, ir::NodeId node, const schedule::Plan* plan) {
  model_->setNode(graph, node, plan);
  // Sections open, and each parameter's statistics; the producer/consumer
  // rows of inputs and outputs stay folded (their value says the type).
  tree_->expandToDepth(0);
  const QModelIndex params = model_->section("Parameters");
  for (int r = 0; r < model_->rowCount(params); ++r) tree_->expand(model_->index(r, 0, params));
  tree_->expand(model_->child(model_->section("Operator"), "Fused ops"));
}

void InspectorView::showOverview(const ir::Graph& graph, const schedule::Plan* plan, const sim::Trace* predicted) {
  model_->setOverview(graph, plan, predicted);
  tree_->expandToDepth(0);  // the sections; inputs, outputs and op types stay folded
}

void InspectorView::clear() { model_->clear(); }

}  // namespace rammer::viz

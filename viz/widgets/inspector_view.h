#pragma once
// The Inspector dock: the selected operator's attributes, shapes, parameter
// statistics and chosen rKernel, or with nothing selected the model's
// summary and the plan's figures, as a tree over viz::InspectorModel.
#include <QWidget>

#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

class QTreeView;

namespace rammer::viz {

class InspectorModel;

class InspectorView : public QWidget {
  Q_OBJECT
 public:
  explicit InspectorView(QWidget* parent = nullptr);

  // Shows one operator; `plan` (optional) adds the rKernel the plan chose.
  // Nothing of `graph` or `plan` is kept after the call.
  void showNode(const ir::Graph& graph, ir::NodeId node, const schedule::Plan* plan = nullptr);
  // Nothing selected: the model's summary and the plan's figures.
  void showOverview(const ir::Graph& graph, const schedule::Plan* plan = nullptr,
                    const sim::Trace* predicted = nullptr);
  void clear();

  InspectorModel* model() const { return model_; }
  QTreeView* tree() const { return tree_; }

 private:
  InspectorModel* model_ = nullptr;
  QTreeView* tree_ = nullptr;
};

}  // namespace rammer::viz

#pragma once
// The Inspector's content for one operator as a two-column tree (property,
// value): the operator itself (and, for a fused group, its expression and
// the ops it replaced), attributes, inputs and outputs with their types,
// parameter statistics of its constant inputs, and the rKernel the plan
// chose. With no operator selected, the model's summary and the plan's
// figures instead of an empty table. Qt Core only; the tree is built when
// the node is set, so the model keeps no reference to the graph or the plan.
#include <QAbstractItemModel>
#include <QString>
#include <memory>
#include <vector>

#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"

namespace rammer::viz {

class InspectorModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { PropertyColumn = 0, ValueColumn = 1, ColumnCount = 2 };

  explicit InspectorModel(QObject* parent = nullptr);
  ~InspectorModel() override;

  // Shows `node` of `graph`; `plan` (optional) adds the rKernel section. An
  // id that is out of range or removed shows one "Problem" row.
  void setNode(const ir::Graph& graph, ir::NodeId node, const schedule::Plan* plan = nullptr);
  // Nothing selected: "Model" (name, interface, nodes, parameters, FLOPs,
  // the most used op types) and, with a plan, "Plan" (policy, device,
  // programs, rTasks, barriers, vEUs, DRAM traffic; with `predicted`, the
  // predicted latency and SM efficiency).
  void setOverview(const ir::Graph& graph, const schedule::Plan* plan = nullptr, const sim::Trace* predicted = nullptr);
  void clear();
  ir::NodeId node() const { return node_; }

  // The top-level section titled `title` ("Operator", "Attributes",
  // "Inputs", "Outputs", "Parameters", "rKernel"; "Model", "Plan"), or an
  // invalid index.
  QModelIndex section(const QString& title) const;
  // The child of `parent` whose property column reads `property`.
  QModelIndex child(const QModelIndex& parent, const QString& property) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& index) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  struct Item;

 private:
  std::unique_ptr<Item> root_;
  ir::NodeId node_ = ir::kNone;
};

}  // namespace rammer::viz

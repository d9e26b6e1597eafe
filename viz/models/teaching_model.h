#pragma once
// Teaching mode's model: one row per step of how the policy built the plan
// (viz/models/teaching_steps.h), and the step being shown. Next / previous
// move through the steps; the view shows the current step's explanation,
// the graph highlights its operators, the timeline the plan built so far.
// Qt Core only.
#include <QAbstractListModel>
#include <QList>
#include <memory>
#include <vector>

#include "core/schedule/plan.h"
#include "viz/models/teaching_steps.h"

namespace rammer::viz {

class TeachingModel : public QAbstractListModel {
  Q_OBJECT

 public:
  enum Role {
    ExplanationRole = Qt::UserRole + 1,  // QString, plain text with the numbers
    OpsRole,                             // QList<int>: Plan::ops indices
    NodesRole,                           // QList<int>: their ir::NodeIds
    RTasksRole,                          // qlonglong
    VeusRole,                            // int
    BarriersRole,                        // int
    CurrentRole,                         // bool: the step being shown
  };

  explicit TeachingModel(QObject* parent = nullptr);

  // The plan to explain (nullptr clears); the current step goes to the first.
  void setPlan(std::shared_ptr<const schedule::Plan> plan);
  // The same with its steps read already (teachingSteps, e.g. on a worker:
  // a plan of thousands of operators takes a while to explain).
  void setSteps(std::shared_ptr<const schedule::Plan> plan, std::vector<TeachingStep> steps);
  const schedule::Plan* plan() const { return plan_.get(); }
  const std::vector<TeachingStep>& steps() const { return steps_; }
  const std::vector<int>& stepOfOp() const { return stepOfOp_; }

  int current() const { return current_; }  // -1 without steps
  void setCurrent(int row);
  bool next();      // false at the last step
  bool previous();  // false at the first
  // The current step's operators and their graph nodes.
  QList<int> currentOps() const;
  QList<int> currentNodes() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;

 signals:
  void currentChanged(int row);

 private:
  std::shared_ptr<const schedule::Plan> plan_;
  std::vector<TeachingStep> steps_;
  std::vector<int> stepOfOp_;
  int current_ = -1;
};

}  // namespace rammer::viz

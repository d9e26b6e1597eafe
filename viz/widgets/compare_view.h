#pragma once
// The Compare window: two policies' plans of the current model side by
// side (default: sequential, i.e. RammerBase, against wavefront, Rammer).
// Both are scheduled, validated and simulated on a worker thread
// (comparePolicies); a table gives predicted latency, SM efficiency,
// programs, vEUs, barriers and rTasks with the A/B ratio, and two
// timelines stacked on one time axis show where the time goes.
#include <QFutureWatcher>
#include <QString>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "viz/models/plan_comparison.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace rammer::viz {

class TimelineView;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  enum Row { LatencyRow, SmEfficiencyRow, ProgramsRow, VeusRow, BarriersRow, RTasksRow, RowCount };

  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  // The optimized graph and the device (preset id or JSON path) to plan for.
  void setModel(std::shared_ptr<const ir::Graph> graph, const QString& device);
  // Starts a comparison (a running one is cancelled); false without a model.
  bool compare(const QString& policyA, const QString& policyB);
  bool compare();  // with the pickers' policies

  bool isBusy() const { return busy_; }
  const std::optional<PlanComparison>& comparison() const { return result_; }
  QTableWidget* table() const { return table_; }
  TimelineView* timelineA() const { return timelineA_; }
  TimelineView* timelineB() const { return timelineB_; }
  QString statusText() const;

 signals:
  void compared(bool ok);

 private:
  void onFinished();
  void showResult();
  void syncRange(TimelineView* from, double t0, double t1);

  QComboBox* policyA_ = nullptr;
  QComboBox* policyB_ = nullptr;
  QPushButton* run_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  TimelineView* timelineA_ = nullptr;
  TimelineView* timelineB_ = nullptr;

  std::shared_ptr<const ir::Graph> graph_;
  QString device_;
  QFutureWatcher<PlanComparison> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool busy_ = false;
  std::optional<PlanComparison> result_;
  bool syncing_ = false;
};

}  // namespace rammer::viz

#pragma once
// The Compare window: every policy's plan of the current model side by side
// (RammerBase's sequential, Rammer's wavefront, greedy, IOS, GraphTurbo),
// each scheduled, validated and simulated on a worker thread
// (summarizePolicies). A table gives predicted latency and the speedup over
// sequential, vEU utilization (predicted SM efficiency), programs, vEUs,
// barriers, rTasks and predicted DRAM traffic; a bar chart the latencies;
// and one small timeline per plan, all on one time axis. A click on a
// policy's column, bar or name opens that plan (policyChosen).
#include <QString>
#include <QWidget>
#include <atomic>
#include <memory>
#include <vector>

#include "viz/models/pipeline_job.h"
#include "viz/models/plan_comparison.h"
#include "viz/models/timeline_model.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace rammer::viz {

class LatencyBars;
class TimelineView;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  enum Row { LatencyRow, SpeedupRow, SmEfficiencyRow, ProgramsRow, VeusRow, BarriersRow, RTasksRow, DramRow, RowCount };

  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  // The model as the session holds it and the device (preset id or JSON path) to plan for.
  void setModel(ComparedModel model, const QString& device);
  // Plans every policy (a running comparison is cancelled); false without a model.
  bool compare();

  bool isBusy() const { return busy_; }
  const std::vector<PlanSummary>& results() const { return results_; }
  QTableWidget* table() const { return table_; }
  LatencyBars* bars() const { return bars_; }
  // One per policy, in results() order.
  const std::vector<TimelineView*>& timelines() const { return timelines_; }
  QString statusText() const;

 signals:
  void compared(bool allOk);
  // A policy's column, bar or timeline name was clicked: open that plan.
  void policyChosen(const QString& policy);

 private:
  void showResults();
  void syncRange(TimelineView* from, double t0, double t1);

  QPushButton* run_ = nullptr;
  QLabel* status_ = nullptr;
  QTableWidget* table_ = nullptr;
  LatencyBars* bars_ = nullptr;
  QWidget* timelineBox_ = nullptr;
  std::vector<TimelineView*> timelines_;

  ComparedModel model_;
  QString device_;
  // The plans and their timelines' lanes (SMs folded), both built on the worker.
  struct Compared {
    std::vector<PlanSummary> summaries;
    std::vector<std::shared_ptr<const TimelineModel>> lanes;
  };
  void onFinished(Compared& c);
  PipelineJob* job_ = nullptr;  // a new comparison cancels the running one
  bool busy_ = false;
  std::vector<PlanSummary> results_;
  std::vector<std::shared_ptr<const TimelineModel>> lanes_;
  bool syncing_ = false;
};

}  // namespace rammer::viz

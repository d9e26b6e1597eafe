#pragma once
// The Timeline dock: the vEU timeline (viz::TimelineView) showing the
// prediction, the last run (GPU measurement or CPU emulation), or the run
// compared with the prediction; a toolbar for what to show, the compare
// mode and slip colouring; and a line naming the sources. A CPU emulation
// runs about a thousand times slower than the GPU it stands in for, so it
// is shown on its own time axis by default. The lane model of a big trace
// is built on a worker thread and handed to the view when ready; when its
// lanes are more than the view shows, with its SMs folded (Fold/Unfold SMs).
#include <QWidget>
#include <memory>

#include "core/sim/trace.h"
#include "viz/models/pipeline_job.h"
#include "viz/models/timeline_model.h"

class QAction;
class QComboBox;
class QLabel;

namespace rammer::viz {
class TimelineView;
}

namespace rammer::studio {

class TimelinePage : public QWidget {
  Q_OBJECT
 public:
  enum class Display { Compare, Prediction, Run };

  explicit TimelinePage(QWidget* parent = nullptr);
  ~TimelinePage() override;

  viz::TimelineView* view() const { return view_; }
  // The prediction's critical path (sim::criticalPath: its rTasks, first to
  // last, and a line saying where its time goes), outlined in the view,
  // an arrow per hand-off, while criticalPathAction() is on and the prediction is shown.
  void setCriticalPath(QList<schedule::RTask> tasks, const QString& summary);
  QAction* criticalPathAction() const { return critical_; }
  // nullptr clears.
  void setPredicted(std::shared_ptr<const sim::Trace> trace);
  void setMeasured(std::shared_ptr<const sim::Trace> trace);
  void setDisplay(Display display);
  Display display() const { return display_; }
  bool isBuilding() const { return building_; }
  QString sourcesText() const;
  // The trace drawn as the main one (nullptr when none).
  const std::shared_ptr<const sim::Trace>& shownTrace() const { return shown_; }

 signals:
  // The view shows what was asked for last.
  void ready();

 private:
  void refresh();
  void startBuild(std::shared_ptr<const sim::Trace> primary);
  void modelBuilt(std::shared_ptr<const viz::TimelineModel> model);
  void updateSources();
  void outlineCriticalPath();

  viz::TimelineView* view_ = nullptr;
  QComboBox* displayBox_ = nullptr;
  QAction* critical_ = nullptr;
  QList<schedule::RTask> criticalTasks_;
  QLabel* sources_ = nullptr;
  viz::PipelineJob* job_ = nullptr;  // builds the shown trace's model
  std::shared_ptr<const sim::Trace> buildingTrace_;  // what the watcher builds
  bool building_ = false;
  Display display_ = Display::Compare;
  std::shared_ptr<const sim::Trace> predicted_;
  std::shared_ptr<const sim::Trace> measured_;
  std::shared_ptr<const sim::Trace> shown_;       // the view's main trace
  std::shared_ptr<const sim::Trace> comparison_;  // the view's comparison
};

}  // namespace rammer::studio

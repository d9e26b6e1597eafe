#pragma once
// Teaching mode: step through how the policy built the plan (a wave of
// Rammer's Algorithm 1, an operator of RammerBase, a stage of IOS, a group
// of GraphTurbo). The steps on the left, the current one explained in plain
// language with its numbers on the right, and below a timeline of the plan
// built so far with the step's rTasks selected. Previous / Next / Play are
// buttons and keys (Left or P, Right or N, Space); stepChanged tells the
// graph which operators to highlight.
#include <QList>
#include <QWidget>
#include <memory>
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/trace.h"
#include "viz/models/pipeline_job.h"
#include "viz/models/teaching_steps.h"
#include "viz/models/timeline_model.h"

class QAction;
class QLabel;
class QListView;
class QTextBrowser;
class QTimer;

namespace rammer::viz {

class TeachingModel;
class TimelineView;

class TeachingView : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kPlayStepMs = 1500;

  explicit TeachingView(QWidget* parent = nullptr);
  ~TeachingView() override;

  // The plan and its prediction (either may be null: clears); back to step
  // 1. Its steps and each step's timeline are computed on a worker thread;
  // ready() says when the current step is shown in full.
  void setPlan(std::shared_ptr<const schedule::Plan> plan, std::shared_ptr<const sim::Trace> predicted);
  bool isBusy() const;

  TeachingModel* model() const { return model_; }
  TimelineView* timeline() const { return timeline_; }
  QString explanation() const;
  bool isPlaying() const;

  QAction* previousAction() const { return previous_; }
  QAction* nextAction() const { return next_; }
  QAction* playAction() const { return play_; }

 signals:
  // The current step's graph nodes (ir::NodeIds), for the graph to highlight.
  void stepChanged(const QList<int>& nodes);
  // The current step's timeline is drawn.
  void ready();

 private:
  void showStep(int row);
  void setPlaying(bool on);

  TeachingModel* model_ = nullptr;
  QListView* list_ = nullptr;
  QTextBrowser* text_ = nullptr;
  QLabel* position_ = nullptr;
  TimelineView* timeline_ = nullptr;
  QTimer* timer_ = nullptr;
  QAction* previous_ = nullptr;
  QAction* next_ = nullptr;
  QAction* play_ = nullptr;
  std::shared_ptr<const sim::Trace> predicted_;
  std::shared_ptr<const schedule::Plan> pendingPlan_;  // whose steps the worker reads
  PipelineJob* steps_ = nullptr;  // the plan's teaching steps
  PipelineJob* lanes_ = nullptr;  // the timeline of the plan up to a step
  int lanesRow_ = -1;  // the step lanes_ is building
};

}  // namespace rammer::viz

#include "viz/widgets/teaching_view.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QSplitter>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "viz/models/teaching_model.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::viz {

namespace {

QAction* makeAction(QWidget* owner, const QString& text, const QList<QKeySequence>& keys, const QString& tip) {
  auto* a = new QAction(text, owner);
  a->setShortcuts(keys);
  a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  a->setToolTip(tip);
  owner->addAction(a);
  return a;
}

}  // namespace

TeachingView::TeachingView(QWidget* parent) : QWidget(parent), model_(new TeachingModel(this)) {
  previous_ = makeAction(this, tr("Previous"), {QKeySequence(Qt::Key_Left), QKeySequence(Qt::Key_P)},
                         tr("The previous step (Left, P)"));
  next_ = makeAction(this, tr("Next"), {QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_N)},
                     tr("The next step (Right, N)"));
  play_ = makeAction(this, tr("Play"), {QKeySequence(Qt::Key_Space)}, tr("Step through the plan on its own (Space)"));
  play_->setCheckable(true);
  connect(previous_, &QAction::triggered, this, [this] {
    setPlaying(false);
    model_->previous();
  });
  connect(next_, &QAction::triggered, this, [this] {
    setPlaying(false);
    model_->next();
  });
  connect(play_, &QAction::toggled, this, &TeachingView::setPlaying);
  timer_ = new QTimer(this);
  timer_->setInterval(kPlayStepMs);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (!model_->next()) setPlaying(false);
  });

  auto* bar = new QToolBar(this);
  bar->addAction(previous_);
  bar->addAction(play_);
  bar->addAction(next_);
  position_ = new QLabel(this);
  bar->addWidget(position_);

  list_ = new QListView(this);
  list_->setModel(model_);
  list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // One line per step: measuring one row, not thousands, when the plan changes.
  list_->setUniformItemSizes(true);
  connect(list_, &QListView::clicked, this, [this](const QModelIndex& i) {
    setPlaying(false);
    model_->setCurrent(i.row());
  });
  text_ = new QTextBrowser(this);
  timeline_ = new TimelineView(this);

  auto* top = new QSplitter(Qt::Horizontal, this);
  top->addWidget(list_);
  top->addWidget(text_);
  top->setStretchFactor(1, 2);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(timeline_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(bar);
  layout->addWidget(split);

  connect(model_, &TeachingModel::currentChanged, this, &TeachingView::showStep);
  steps_ = new PipelineJob(this);
  lanes_ = new PipelineJob(this);
  showStep(-1);
}

TeachingView::~TeachingView() = default;  // the jobs join their workers

void TeachingView::setPlan(std::shared_ptr<const schedule::Plan> plan, std::shared_ptr<const sim::Trace> predicted) {
  setPlaying(false);
  predicted_ = plan ? std::move(predicted) : nullptr;
  pendingPlan_ = plan;
  model_->setPlan(nullptr);
  if (!plan) return;
  position_->setText(tr("  Reading how the %1 plan was built…").arg(QString::fromStdString(plan->policy)));
  using Steps = std::vector<TeachingStep>;
  steps_->start<Steps>(
      tr("Reading how the plan was built"),
      [plan, trace = predicted_](const pipeline::Control&) { return teachingSteps(*plan, trace.get()); },
      [this](Steps& steps) {
        if (!pendingPlan_) return;  // cleared meanwhile
        model_->setSteps(std::exchange(pendingPlan_, nullptr), std::move(steps));  // shows step 1
      });
}

bool TeachingView::isBusy() const { return pendingPlan_ != nullptr || steps_->isBusy() || lanes_->isBusy(); }

QString TeachingView::explanation() const { return text_->toPlainText(); }
bool TeachingView::isPlaying() const { return timer_->isActive(); }

void TeachingView::setPlaying(bool on) {
  if (on && model_->rowCount() == 0) on = false;
  if (on) timer_->start();
  else timer_->stop();
  if (play_->isChecked() != on) {
    const QSignalBlocker block(play_);
    play_->setChecked(on);
  }
  play_->setText(on ? tr("Pause") : tr("Play"));
}

void TeachingView::showStep(int row) {
  const int n = model_->rowCount();
  previous_->setEnabled(row > 0);
  next_->setEnabled(row >= 0 && row + 1 < n);
  play_->setEnabled(n > 1);
  if (row < 0) {
    lanesRow_ = -1;
    position_->setText(tr("  No plan: open a model to see how its schedule is built."));
    text_->clear();
    timeline_->setTrace(nullptr);
    emit stepChanged({});
    return;
  }
  position_->setText(tr("  Step %1 of %2 (%3)").arg(row + 1).arg(n).arg(QString::fromStdString(model_->plan()->policy)));
  list_->setCurrentIndex(model_->index(row));
  text_->setPlainText(model_->index(row).data(TeachingModel::ExplanationRole).toString());
  if (predicted_) {
    // The plan so far: a new trace and its lanes, built on a worker.
    lanesRow_ = row;
    using Lanes = std::shared_ptr<const TimelineModel>;
    lanes_->start<Lanes>(
        tr("Drawing the plan so far"),
        [trace = predicted_, stepOf = model_->stepOfOp(), row](const pipeline::Control&) -> Lanes {
          return std::make_shared<const TimelineModel>(std::make_shared<const sim::Trace>(traceUpTo(*trace, stepOf, row)));
        },
        [this](Lanes& lanes) {
          if (lanesRow_ < 0 || lanesRow_ != model_->current()) return;  // another step (or plan) came meanwhile
          timeline_->setModel(lanes);
          timeline_->selectOps(model_->currentOps());
          emit ready();
        });
  } else {
    emit ready();
  }
  emit stepChanged(model_->currentNodes());
}

}  // namespace rammer::viz

#include "app/studio/timeline_page.h"

#include <QActionGroup>
#include <algorithm>
#include <QComboBox>
#include <QKeySequence>
#include <QLabel>
#include <QToolBar>
#include <QVBoxLayout>

#include "viz/widgets/timeline_view.h"

namespace rammer::studio {

TimelinePage::TimelinePage(QWidget* parent) : QWidget(parent), view_(new viz::TimelineView(this)) {
  auto* bar = new QToolBar(this);
  bar->setIconSize(QSize(16, 16));
  displayBox_ = new QComboBox(bar);
  displayBox_->addItem(tr("Run vs prediction"), static_cast<int>(Display::Compare));
  displayBox_->addItem(tr("Prediction"), static_cast<int>(Display::Prediction));
  displayBox_->addItem(tr("Run"), static_cast<int>(Display::Run));
  displayBox_->setToolTip(tr("What the timeline shows: the prediction, the last run, or the run compared with "
                             "the prediction rTask by rTask"));
  bar->addWidget(displayBox_);
  connect(displayBox_, &QComboBox::activated, this,
          [this](int index) { setDisplay(static_cast<Display>(displayBox_->itemData(index).toInt())); });

  auto* modes = new QActionGroup(this);
  QAction* side = bar->addAction(tr("Side by side"));
  QAction* overlay = bar->addAction(tr("Overlay"));
  for (QAction* a : {side, overlay}) {
    a->setCheckable(true);
    modes->addAction(a);
  }
  side->setChecked(true);
  side->setToolTip(tr("Show the run below the prediction"));
  overlay->setToolTip(tr("Show the run in the lower half of each predicted lane"));
  connect(side, &QAction::triggered, this, [this] { view_->setCompareMode(viz::TimelineView::CompareMode::SideBySide); });
  connect(overlay, &QAction::triggered, this, [this] { view_->setCompareMode(viz::TimelineView::CompareMode::Overlay); });
  QAction* slip = bar->addAction(tr("Colour by slip"));
  slip->setCheckable(true);
  slip->setChecked(view_->slipColouring());
  slip->setToolTip(tr("Colour the run's rTasks by how far they slipped from the prediction"));
  connect(slip, &QAction::toggled, view_, &viz::TimelineView::setSlipColouring);
  critical_ = bar->addAction(tr("Critical path"));
  critical_->setCheckable(true);
  critical_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
  critical_->setToolTip(tr("Outline the prediction's critical path and its hand-offs (Ctrl+Shift+P)"));
  connect(critical_, &QAction::toggled, this, [this] { outlineCriticalPath(); });
  bar->addSeparator();
  // The view's window actions (they also answer W, S and F in the view).
  bar->addAction(view_->zoom()->zoomInAction());
  bar->addAction(view_->zoom()->zoomOutAction());
  bar->addAction(view_->zoom()->fitAction());
  QAction* zoomSel = bar->addAction(tr("Zoom to selection"), view_, &viz::TimelineView::zoomToSelectedOps);
  zoomSel->setToolTip(tr("Fit the selected operators' rTasks"));
  bar->addSeparator();
  bar->addAction(view_->folds()->foldAction());
  bar->addAction(view_->folds()->unfoldAction());

  sources_ = new QLabel(this);
  sources_->setContentsMargins(6, 2, 6, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(bar);
  layout->addWidget(sources_);
  layout->addWidget(view_, 1);
  job_ = new viz::PipelineJob(this);
  updateSources();
}

TimelinePage::~TimelinePage() = default;  // job_ joins its worker

void TimelinePage::setPredicted(std::shared_ptr<const sim::Trace> trace) {
  predicted_ = std::move(trace);
  refresh();
}

void TimelinePage::setMeasured(std::shared_ptr<const sim::Trace> trace) {
  measured_ = std::move(trace);
  refresh();
}

void TimelinePage::setDisplay(Display display) {
  display_ = display;
  displayBox_->setCurrentIndex(displayBox_->findData(static_cast<int>(display)));
  refresh();
}

void TimelinePage::refresh() {
  // Without a run every choice shows the prediction.
  const bool run = display_ == Display::Run && measured_;
  std::shared_ptr<const sim::Trace> primary = run ? measured_ : predicted_;
  comparison_ = display_ == Display::Compare ? measured_ : nullptr;
  if (primary != shown_) {
    shown_ = primary;
    const bool wasBuilding = building_;
    building_ = true;
    updateSources();
    if (wasBuilding) return;  // modelBuilt starts the newest one
    startBuild(primary);
    return;
  }
  if (building_) {
    updateSources();  // modelBuilt applies the comparison
    return;
  }
  view_->setComparisonTrace(comparison_);
  updateSources();
  emit ready();
}

void TimelinePage::modelBuilt(std::shared_ptr<const viz::TimelineModel> model) {
  if (buildingTrace_ != shown_) {
    // What to show changed while this model was being built: build the newest.
    startBuild(shown_);
    return;
  }
  view_->setModel(std::move(model));
  if (comparison_) view_->setComparisonTrace(comparison_);
  building_ = false;
  outlineCriticalPath();  // a new model clears the view's outlines
  updateSources();
  emit ready();
}

void TimelinePage::startBuild(std::shared_ptr<const sim::Trace> primary) {
  buildingTrace_ = primary;
  // A trace with more lanes than the view shows opens with its SMs folded.
  const int height = std::max(view_->viewport()->height(), 200), laneHeight = view_->laneHeight();
  using Built = std::shared_ptr<const viz::TimelineModel>;
  job_->start<Built>(
      tr("Laying out the timeline"),
      [primary, height, laneHeight](const pipeline::Control&) -> Built {
        auto model = std::make_shared<const viz::TimelineModel>(primary);
        if (!viz::TimelineFolds::crowded(*model, height, laneHeight)) return model;
        return std::make_shared<const viz::TimelineModel>(primary, nullptr, model->sms());
      },
      [this](Built& model) { modelBuilt(std::move(model)); });
}

void TimelinePage::setCriticalPath(QList<schedule::RTask> tasks, const QString& summary) {
  criticalTasks_ = std::move(tasks);
  const QString tip = tr("Outline the prediction's critical path and its hand-offs (Ctrl+Shift+P)");
  critical_->setToolTip(summary.isEmpty() ? tip : tip + QStringLiteral(": ") + summary);
  outlineCriticalPath();
}

void TimelinePage::outlineCriticalPath() {
  if (building_) return;  // modelBuilt outlines it
  const bool on = critical_->isChecked() && shown_ && shown_ == predicted_;
  view_->highlightPath(on ? criticalTasks_ : QList<schedule::RTask>{});
}

QString TimelinePage::sourcesText() const { return sources_->text(); }

void TimelinePage::updateSources() {
  if (!shown_) {
    sources_->setText(tr("No trace yet: open a model (Ctrl+O)."));
    return;
  }
  QString text = QString::fromStdString(shown_->source);
  if (comparison_)
    text += tr("   |   compared with: %1").arg(QString::fromStdString(comparison_->source));
  else if (!measured_)
    text += tr("   |   Compile & Run (Ctrl+R) adds the run");
  else if (shown_ == measured_ && predicted_)
    text += tr("   |   its own time axis; the prediction is %1 us").arg(predicted_->totalUs, 0, 'f', 1);
  if (building_) text += tr("   (building lanes…)");
  sources_->setText(text);
}

}  // namespace rammer::studio

#include "viz/widgets/compare_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "core/ops/model_summary.h"
#include "core/schedule/policy.h"
#include "viz/widgets/latency_bars.h"
#include "viz/widgets/timeline_view.h"
#include "viz/widgets/timeline_zoom.h"

namespace rammer::viz {

namespace {

constexpr int kTimelineHeight = 150;

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  run_ = new QPushButton(tr("Compare again"), this);
  status_ = new QLabel(tr("No model."), this);

  table_ = new QTableWidget(RowCount, 0, this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setVerticalHeaderLabels({tr("predicted latency (us)"), tr("speedup over sequential"), tr("vEU utilization"),
                                   tr("rPrograms"), tr("vEUs (widest program)"), tr("barriers"), tr("rTasks"),
                                   tr("predicted DRAM traffic")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->horizontalHeader()->setToolTip(tr("Click a policy to open its plan"));
  connect(table_->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int column) {
    if (column >= 0 && column < static_cast<int>(results_.size()))
      emit policyChosen(QString::fromStdString(schedule::policyName(results_[static_cast<size_t>(column)].policy)));
  });

  bars_ = new LatencyBars(this);
  connect(bars_, &LatencyBars::barClicked, this, &CompareView::policyChosen);

  timelineBox_ = new QWidget(this);
  auto* timelineLayout = new QVBoxLayout(timelineBox_);
  timelineLayout->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setWidget(timelineBox_);

  auto* bar = new QHBoxLayout;
  bar->addWidget(run_);
  bar->addWidget(status_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(bars_);
  split->addWidget(scroll);
  split->setStretchFactor(2, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this, [this] { compare(); });
  job_ = new PipelineJob(this);
}

CompareView::~CompareView() = default;  // job_ cancels the policies and joins its worker

void CompareView::setModel(ComparedModel model, const QString& device) {
  model_ = std::move(model);
  device_ = device;
  status_->setText(model_.optimized ? tr("Ready: compare every policy on %1.").arg(device_) : tr("No model."));
}

bool CompareView::compare() {
  if (!model_.optimized) return false;
  busy_ = true;
  run_->setEnabled(false);
  const std::vector<schedule::PolicyId> policies = schedule::policyIds();
  status_->setText(tr("Scheduling and simulating %1 policies on %2…").arg(policies.size()).arg(device_));
  // A comparison still running is superseded: its flag stops the policies.
  std::function<Compared(const pipeline::Control&)> work = [model = model_, device = device_.toStdString(),
                                                             policies](const pipeline::Control& control) {
    Compared out;
    out.summaries = summarizePolicies(model, device, policies, control);
    // One lane per SM: a small timeline shows the plan's shape.
    for (const PlanSummary& s : out.summaries) {
      const auto trace = s.ok() ? s.predicted : nullptr;
      out.lanes.push_back(
          std::make_shared<const TimelineModel>(trace, nullptr, trace ? TimelineModel::smsOf(*trace) : std::set<int32_t>{}));
    }
    return out;
  };
  job_->start<Compared>(tr("Comparing the policies"), std::move(work), [this](Compared& c) { onFinished(c); });
  return true;
}

void CompareView::onFinished(Compared& c) {
  busy_ = false;
  run_->setEnabled(true);
  results_ = std::move(c.summaries);
  lanes_ = std::move(c.lanes);
  showResults();
  emit compared(!results_.empty() && std::all_of(results_.begin(), results_.end(), [](const auto& s) { return s.ok(); }));
}

void CompareView::showResults() {
  const auto n = static_cast<int>(results_.size());
  table_->setColumnCount(n);
  QStringList headers;
  std::vector<LatencyBars::Bar> bars;
  double end = 0, best = 0;
  QString bestPolicy;
  for (int col = 0; col < n; ++col) {
    const PlanSummary& s = results_[static_cast<size_t>(col)];
    const QString policy = QString::fromStdString(schedule::policyName(s.policy));
    headers << policy;
    bars.push_back({policy, s.ok() ? s.figures.predictedUs : 0});
    auto cell = [&](int row, const QString& text) { table_->setItem(row, col, new QTableWidgetItem(text)); };
    if (!s.ok()) {
      const QString why = QString::fromStdString(pipeline::failureText(s));
      for (int row = 0; row < RowCount; ++row) cell(row, row == 0 ? why : QString());
      continue;
    }
    end = std::max(end, s.figures.predictedUs);
    if (best <= 0 || s.figures.predictedUs < best) {
      best = s.figures.predictedUs;
      bestPolicy = policy;
    }
    const double speedup = pipeline::speedupOverSequential(results_, s).value_or(0);
    cell(LatencyRow, QString::number(s.figures.predictedUs, 'f', 1));
    cell(SpeedupRow, speedup > 0 ? QStringLiteral("%1x").arg(speedup, 0, 'f', 2) : QStringLiteral("–"));
    cell(SmEfficiencyRow, QString::number(100 * s.figures.smEfficiency, 'f', 1) + QLatin1Char('%'));
    cell(ProgramsRow, QString::number(s.figures.programs));
    cell(VeusRow, QString::number(s.figures.maxVEUs));
    cell(BarriersRow, QString::number(s.figures.barriers));
    cell(RTasksRow, QString::number(s.figures.rtasks));
    cell(DramRow, QString::fromStdString(ops::formatBytes(static_cast<int64_t>(s.figures.dramBytes))));
  }
  table_->setHorizontalHeaderLabels(headers);
  bars_->setBars(std::move(bars));

  // One small timeline per plan, on one time axis.
  for (TimelineView* t : timelines_) t->parentWidget()->deleteLater();
  timelines_.clear();
  auto* layout = static_cast<QVBoxLayout*>(timelineBox_->layout());
  for (size_t i = 0; i < results_.size(); ++i) {
    const PlanSummary& s = results_[i];
    auto* box = new QWidget(timelineBox_);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(2, 2, 2, 2);
    const QString policy = QString::fromStdString(schedule::policyName(s.policy));
    auto* name = new QPushButton(policy, box);
    name->setFlat(true);
    name->setToolTip(tr("Open this plan"));
    connect(name, &QPushButton::clicked, this, [this, p = policy] { emit policyChosen(p); });
    auto* timeline = new TimelineView(box);
    timeline->setMinimumHeight(kTimelineHeight);
    timeline->setModel(lanes_[i]);
    v->addWidget(name, 0, Qt::AlignLeft);
    v->addWidget(timeline);
    layout->addWidget(box);
    timelines_.push_back(timeline);
    connect(timeline, &TimelineView::visibleRangeChanged, this,
            [this, timeline](double t0, double t1) { syncRange(timeline, t0, t1); });
  }
  // The same window on every timeline: each may scroll to the slowest plan's end.
  syncing_ = true;
  if (end > 0)
    for (TimelineView* t : timelines_) {
      t->zoom()->setExtent(0, end);
      t->setVisibleRange(0, end);
    }
  syncing_ = false;
  const auto failed = std::count_if(results_.begin(), results_.end(), [](const auto& s) { return !s.ok(); });
  status_->setText(failed == 0 ? tr("%1 policies on %2; fastest: %3 (%4 us). Click a policy to open its plan.")
                                     .arg(n)
                                     .arg(device_, bestPolicy)
                                     .arg(best, 0, 'f', 1)
                               : tr("%1 of %2 policies failed; fastest of the rest: %3").arg(failed).arg(n).arg(bestPolicy));
}

void CompareView::syncRange(TimelineView* from, double t0, double t1) {
  if (syncing_) return;
  syncing_ = true;
  for (TimelineView* t : timelines_)
    if (t != from) t->setVisibleRange(t0, t1);
  syncing_ = false;
}

QString CompareView::statusText() const { return status_->text(); }

}  // namespace rammer::viz

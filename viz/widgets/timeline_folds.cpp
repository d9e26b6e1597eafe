#include "viz/widgets/timeline_folds.h"

#include <QAction>

#include "viz/widgets/timeline_view.h"

namespace rammer::viz {

TimelineFolds::TimelineFolds(TimelineView* view) : QObject(view), view_(view) {
  fold_ = new QAction(tr("Fold SMs"), this);
  fold_->setToolTip(tr("One lane per SM, its vEUs drawn over each other (double-click an SM's name to toggle it)"));
  unfold_ = new QAction(tr("Unfold SMs"), this);
  unfold_->setToolTip(tr("One lane per vEU"));
  connect(fold_, &QAction::triggered, this, [this] { setAllFolded(true); });
  connect(unfold_, &QAction::triggered, this, [this] { setAllFolded(false); });
}

const std::set<int32_t>& TimelineFolds::folded() const { return view_->model().foldedSms(); }

void TimelineFolds::setFolded(std::set<int32_t> sms) {
  const TimelineModel& m = view_->model();
  if (sms == m.foldedSms()) return;
  // A new model on the same trace; the window, selection and comparison stay.
  const double t0 = view_->zoom()->startUs(), span = view_->zoom()->spanUs();
  const QList<int> ops = view_->selectedOps();
  const TimelineModel* comparison = view_->comparisonModel();
  const auto comparisonTrace = comparison ? comparison->sharedTrace() : nullptr;
  view_->setModel(std::make_shared<TimelineModel>(m.sharedTrace(), nullptr, std::move(sms)));
  if (comparisonTrace) view_->setComparisonTrace(comparisonTrace);
  view_->selectOps(ops);
  view_->setVisibleRange(t0, t0 + span);
  emit changed();
}

void TimelineFolds::setAllFolded(bool folded) {
  setFolded(folded ? view_->model().sms() : std::set<int32_t>{});
}

void TimelineFolds::toggle(int32_t sm) {
  std::set<int32_t> sms = folded();
  if (!sms.erase(sm)) sms.insert(sm);
  setFolded(std::move(sms));
}

bool TimelineFolds::crowded(const TimelineModel& model, int heightPx, int laneHeight) {
  return model.numLanes() * laneHeight > heightPx;
}

}  // namespace rammer::viz

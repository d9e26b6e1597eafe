#pragma once
// Which SMs of a timeline are folded (one lane for all their vEUs): view
// state as an object with its actions, Fold SMs and Unfold SMs. A plan on
// the H100 preset has up to 528 vEU lanes; folded, it has 132 SM lanes, so
// a first look at a big plan starts folded (foldIfCrowded). A double-click
// on an SM's name toggles that SM. Changing the folds rebuilds the view's
// lanes and keeps its time window, selection and comparison.
#include <QObject>
#include <cstdint>
#include <set>

#include "viz/models/timeline_model.h"

class QAction;

namespace rammer::viz {

class TimelineView;

class TimelineFolds : public QObject {
  Q_OBJECT

 public:
  explicit TimelineFolds(TimelineView* view);

  const std::set<int32_t>& folded() const;
  void setFolded(std::set<int32_t> sms);
  void setAllFolded(bool folded);
  void toggle(int32_t sm);
  // Whether `model`'s lanes are more than `heightPx` shows at `laneHeight`.
  static bool crowded(const TimelineModel& model, int heightPx, int laneHeight);

  QAction* foldAction() const { return fold_; }
  QAction* unfoldAction() const { return unfold_; }

 signals:
  void changed();

 private:
  TimelineView* view_;
  QAction* fold_ = nullptr;
  QAction* unfold_ = nullptr;
};

}  // namespace rammer::viz

#pragma once
// The Log dock: every stage's one-line account (what it did, how long it
// took), cancels and supersedes, exports; warnings and errors coloured.
// Follows the newest line unless the person scrolled up.
#include <QWidget>

class QListView;

namespace rammer::viz {
class LogModel;
}

namespace rammer::studio {

class LogPage : public QWidget {
  Q_OBJECT
 public:
  explicit LogPage(viz::LogModel* model, QWidget* parent = nullptr);
  QListView* view() const { return view_; }

 private:
  viz::LogModel* model_;
  QListView* view_ = nullptr;
};

}  // namespace rammer::studio

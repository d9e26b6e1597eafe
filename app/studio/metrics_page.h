#pragma once
// The Metrics dock: the prediction beside the last run (viz::MetricsModel),
// with a line that names where each column comes from, so an emulated run
// is never read as a GPU measurement.
#include <QWidget>

class QLabel;
class QTableView;

namespace rammer::viz {
class MetricsModel;
}

namespace rammer::studio {

class MetricsPage : public QWidget {
  Q_OBJECT
 public:
  explicit MetricsPage(viz::MetricsModel* model, QWidget* parent = nullptr);
  QTableView* view() const { return view_; }
  QString sourceText() const;

 private:
  void updateSource();

  viz::MetricsModel* model_;
  QTableView* view_ = nullptr;
  QLabel* source_ = nullptr;
};

}  // namespace rammer::studio

#pragma once
// The Diagnostics dock: the session's diagnostics as a table (severity icon,
// stage, node, rTask, message), a one-line count, and double-click (or
// Enter) on a row that names a node to find that node in the graph, and on
// one that names an rTask to outline it in the timeline.
#include <QWidget>

class QLabel;
class QTreeView;

namespace rammer::viz {
class DiagnosticsModel;
}

namespace rammer::studio {

class DiagnosticsPage : public QWidget {
  Q_OBJECT
 public:
  explicit DiagnosticsPage(viz::DiagnosticsModel* model, QWidget* parent = nullptr);
  QTreeView* view() const { return view_; }
  QString summaryText() const;

 signals:
  // The person asked to see this node (a node or value name).
  void nodeActivated(const QString& name);
  // ... and this rTask (plan op index, rTask id).
  void rtaskActivated(int op, int rtask);

 private:
  void updateSummary();

  viz::DiagnosticsModel* model_;
  QTreeView* view_ = nullptr;
  QLabel* summary_ = nullptr;
};

}  // namespace rammer::studio

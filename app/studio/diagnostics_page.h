#pragma once
// The Diagnostics dock: the session's diagnostics as a table (severity icon,
// stage, node, message), a one-line count, and double-click (or Enter) on a
// row that names a node to find that node in the graph.
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

 private:
  void updateSummary();

  viz::DiagnosticsModel* model_;
  QTreeView* view_ = nullptr;
  QLabel* summary_ = nullptr;
};

}  // namespace rammer::studio

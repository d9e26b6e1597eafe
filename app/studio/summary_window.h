#pragma once
// The placeholder main window: imports a model off the UI thread and lists
// its summary (interface, operators, parameters, FLOPs).
#include <QFutureWatcher>
#include <QMainWindow>
#include <QString>
#include <optional>

#include "core/ops/model_summary.h"

class QAction;
class QTreeWidget;

namespace rammer::studio {

// What the import thread hands back; the graph itself stays on that thread.
struct LoadResult {
  QString path;
  std::optional<ops::ModelSummary> summary;
  QString error;
  double seconds = 0;
};

class SummaryWindow : public QMainWindow {
  Q_OBJECT

 public:
  // `quitAfterLoad`: report to stderr and quit once the model is loaded
  // (smoke tests; no dialogs).
  explicit SummaryWindow(bool quitAfterLoad = false, QWidget* parent = nullptr);

  void openModel(const QString& path);

 private:
  void chooseModel();
  void loadFinished();
  void showSummary(const QString& path, const ops::ModelSummary& s);

  QTreeWidget* tree_ = nullptr;
  QAction* openAction_ = nullptr;
  QFutureWatcher<LoadResult> watcher_;
  bool quitAfterLoad_ = false;
};

}  // namespace rammer::studio

#pragma once
// Schedule editing in the main window, kept apart from it: the undo stack
// (Ctrl+Z / Ctrl+Shift+Z), the Edit menu (cut or merge programs before the
// selected operator, move it to a vEU, load/save the schedule-edits JSON
// with Ctrl+Shift+O / Ctrl+Shift+S), the rKernels dock (pin a candidate),
// and the Compare window (Ctrl+Shift+C: every policy side by side). A
// refused edit is not applied: the timeline highlights the operators whose
// rTasks it would break and outlines those rTasks, the Diagnostics dock
// (filled by the session) says why. Dragging an rTask (Alt: its operator) to another vEU in the timeline
// is a move edit; switching the policy is an undo command too.
// The Code dock is the main window's (it already follows the selection).
#include <QHash>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "core/schedule/rprogram.h"
#include "viz/models/kernel_choice_model.h"

class QAction;
class QWidget;

namespace rammer::viz {
class CompareView;
class KernelsView;
class ScheduleEditor;
}  // namespace rammer::viz

namespace rammer::studio {

class MainWindow;

class EditingController : public QObject {
  Q_OBJECT

 public:
  explicit EditingController(MainWindow* window);
  ~EditingController() override;

  viz::ScheduleEditor* editor() const { return editor_; }
  viz::KernelsView* kernelsView() const { return kernels_; }
  viz::CompareView* compareView() const { return compare_; }
  QWidget* compareWindow() const { return compareWindow_; }
  // "undo", "redo", "cutBefore", "mergeBefore", "moveToVeu", "shape0" (the
  // policy's vDevice shape), "shape1", "shape2", "shape4" (pinned vEUs per
  // SM), "loadEdits", "saveEdits", "compare".
  QAction* action(const QString& name) const { return actions_.value(name); }

  // The operator the edit actions apply to (Plan::ops index; -1: none).
  int selectedOp() const { return selected_; }
  void selectOp(int op);
  // Opens the Compare window and compares every policy; a click there on a
  // policy switches the session to it (through the undo stack).
  void showCompare();
  // Switches the scheduling policy through the undo stack (the toolbar's
  // picker calls this); without a model it only sets the session's policy.
  void setPolicy(const QString& policy);

 private:
  void createActions();
  void onPlanChanged();
  void refreshKernels();
  void updateActions();
  void onRejected(const QString& text, const QString& reason, const QList<int>& ops);
  void onTaskDropped(schedule::RTask task, int program, int targetVeu, int targetOrderHint, bool wholeOperator);
  QString selectedNode() const;
  void moveSelected();
  void loadEdits();
  void saveEdits();

  MainWindow* window_;
  viz::ScheduleEditor* editor_ = nullptr;
  viz::KernelsView* kernels_ = nullptr;
  QWidget* compareWindow_ = nullptr;
  viz::CompareView* compare_ = nullptr;
  QHash<QString, QAction*> actions_;
  int selected_ = -1;
  // Candidates of every operator, fetched once per (graph, device).
  std::optional<viz::KernelChoiceCatalog> catalog_;
  const void* catalogGraph_ = nullptr;
};

}  // namespace rammer::studio

#include "app/studio/editing_controller.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "app/studio/main_window.h"
#include "app/studio/timeline_page.h"
#include "viz/widgets/compare_view.h"
#include "viz/widgets/graph_view.h"
#include "viz/widgets/kernels_view.h"
#include "viz/widgets/policy_command.h"
#include "viz/widgets/schedule_edit_commands.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {

namespace {

viz::ComparedModel comparedModel(const viz::StudioSession& s) {
  return {s.originalGraph(), s.optimized(), s.optimizedFor(), s.planChoices()};
}

}  // namespace

EditingController::EditingController(MainWindow* window) : QObject(window), window_(window) {
  viz::StudioSession* session = window_->session();
  editor_ = new viz::ScheduleEditor(session, this);

  kernels_ = window_->kernelsView();
  connect(kernels_, &viz::KernelsView::pinRequested, editor_, &viz::ScheduleEditor::pinKernel);
  connect(kernels_, &viz::KernelsView::unpinRequested, editor_,
          [this](const QString& node) { editor_->pinKernel(node, {}); });

  compareWindow_ = new QWidget(window_, Qt::Window);
  compareWindow_->setWindowTitle(tr("Compare plans — Rammer Studio"));
  compare_ = new viz::CompareView(compareWindow_);
  auto* layout = new QVBoxLayout(compareWindow_);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(compare_);
  compareWindow_->resize(1100, 860);
  // A click on a policy there opens its plan here.
  connect(compare_, &viz::CompareView::policyChosen, this, [this](const QString& policy) {
    setPolicy(policy);
    window_->raise();
    window_->activateWindow();
  });

  createActions();

  connect(session, &viz::StudioSession::planChanged, this, &EditingController::onPlanChanged);
  connect(session, &viz::StudioSession::busyChanged, this, &EditingController::updateActions);
  connect(session, &viz::StudioSession::modelLoaded, this, [this] { selectOp(-1); });
  connect(editor_, &viz::ScheduleEditor::editRejected, this, &EditingController::onRejected);
  connect(editor_, &viz::ScheduleEditor::editApplied, this,
          [this](const QString& text) { window_->statusBar()->showMessage(tr("Applied: %1").arg(text), 8000); });
  connect(window_->timelinePage()->view(), &viz::TimelineView::opsSelected, this,
          [this](const QList<int>& ops) { selectOp(ops.isEmpty() ? -1 : ops.first()); });
  connect(window_->timelinePage()->view(), &viz::TimelineView::taskDropped, this, &EditingController::onTaskDropped);
  connect(window_->graphView(), &viz::GraphView::nodeSelected, this, [this](const QList<int>& nodes) {
    int op = -1;
    if (auto plan = window_->session()->plan(); plan && !nodes.isEmpty())
      for (size_t i = 0; i < plan->ops.size(); ++i)
        if (plan->ops[i].node == nodes.first()) op = static_cast<int>(i);
    selectOp(op);
  });
  onPlanChanged();
}

EditingController::~EditingController() = default;

void EditingController::createActions() {
  auto make = [this](const QString& name, const QString& text, const QKeySequence& key = {}) {
    auto* a = new QAction(text, window_);
    a->setObjectName(name);
    if (!key.isEmpty()) a->setShortcut(key);
    window_->addAction(a);  // shortcuts work with the menu closed
    actions_.insert(name, a);
    return a;
  };
  QUndoStack* stack = editor_->undoStack();
  QAction* undo = stack->createUndoAction(window_, tr("&Undo"));
  undo->setObjectName(QStringLiteral("undo"));
  undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  actions_.insert(QStringLiteral("undo"), undo);
  QAction* redo = stack->createRedoAction(window_, tr("&Redo"));
  redo->setObjectName(QStringLiteral("redo"));
  redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  actions_.insert(QStringLiteral("redo"), redo);
  window_->addAction(undo);
  window_->addAction(redo);

  connect(make(QStringLiteral("cutBefore"), tr("&Cut Program Before Operator")), &QAction::triggered, this,
          [this] { editor_->cutBefore(selectedNode()); });
  connect(make(QStringLiteral("mergeBefore"), tr("&Merge Programs at Operator")), &QAction::triggered, this,
          [this] { editor_->mergeBefore(selectedNode()); });
  connect(make(QStringLiteral("moveToVeu"), tr("Move Operator to &vEU…")), &QAction::triggered, this,
          &EditingController::moveSelected);
  // The vDevice shape of the selected operator's program (issue #27 item 2).
  for (const int shape : {0, 1, 2, 4}) {
    const QString name = QStringLiteral("shape%1").arg(shape);
    QAction* a = make(name, shape == 0 ? tr("Shape Chosen by the &Policy")
                                       : tr("&%1 vEU%2 per SM (up to %3 registers)")
                                             .arg(shape)
                                             .arg(shape == 1 ? QString() : QStringLiteral("s"))
                                             .arg(shape == 1 ? 255 : 256 / shape));
    a->setCheckable(true);
    connect(a, &QAction::triggered, this, [this, shape] { editor_->pinShape(selectedNode(), shape); });
  }
  connect(make(QStringLiteral("loadEdits"), tr("&Load Schedule Edits…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)),
          &QAction::triggered, this, &EditingController::loadEdits);
  connect(make(QStringLiteral("saveEdits"), tr("&Save Schedule Edits…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)),
          &QAction::triggered, this, &EditingController::saveEdits);
  connect(make(QStringLiteral("compare"), tr("C&ompare Plans…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C)),
          &QAction::triggered, this, &EditingController::showCompare);

  auto* menu = new QMenu(tr("&Edit"), window_->menuBar());
  menu->addAction(undo);
  menu->addAction(redo);
  menu->addSeparator();
  menu->addAction(action(QStringLiteral("cutBefore")));
  menu->addAction(action(QStringLiteral("mergeBefore")));
  menu->addAction(action(QStringLiteral("moveToVeu")));
  QMenu* shapes = menu->addMenu(tr("v&Device Shape"));
  shapes->setObjectName(QStringLiteral("shapeMenu"));
  for (const char* name : {"shape0", "shape1", "shape2", "shape4"}) shapes->addAction(action(QLatin1String(name)));
  menu->addSeparator();
  menu->addAction(action(QStringLiteral("loadEdits")));
  menu->addAction(action(QStringLiteral("saveEdits")));
  menu->addSeparator();
  menu->addAction(action(QStringLiteral("compare")));
  // After File, where an Edit menu is expected.
  const auto top = window_->menuBar()->actions();
  if (top.size() > 1)
    window_->menuBar()->insertMenu(top.at(1), menu);
  else
    window_->menuBar()->addMenu(menu);
  updateActions();
}

void EditingController::selectOp(int op) {
  selected_ = op;
  refreshKernels();
  updateActions();
}

QString EditingController::selectedNode() const {
  auto plan = window_->session()->plan();
  if (!plan || selected_ < 0 || static_cast<size_t>(selected_) >= plan->ops.size()) return {};
  return QString::fromStdString(plan->ops[static_cast<size_t>(selected_)].name);
}

void EditingController::onPlanChanged() {
  auto plan = window_->session()->plan();
  if (!plan || (selected_ >= 0 && static_cast<size_t>(selected_) >= plan->ops.size())) selected_ = -1;
  refreshKernels();
  updateActions();
  if (compareWindow_->isVisible() && window_->session()->optimized())
    compare_->setModel(comparedModel(*window_->session()), window_->session()->device());
}

void EditingController::refreshKernels() {
  viz::StudioSession* s = window_->session();
  auto plan = s->plan();
  auto graph = s->graph();
  if (!plan || !graph) {
    kernels_->setMessage(tr("No plan yet: open a model."));
    return;
  }
  if (selected_ < 0) {
    kernels_->setChoices({});
    return;
  }
  if (!catalog_ || catalogGraph_ != graph.get() || catalog_->deviceId() != plan->device.id) {
    auto c = viz::KernelChoiceCatalog::build(*graph, plan->device);
    if (!c) {
      catalog_.reset();
      kernels_->setMessage(QString::fromStdString(ir::formatDiagnostics(c.errors())));
      return;
    }
    catalog_.emplace(std::move(c).value());
    catalogGraph_ = graph.get();
  }
  kernels_->setChoices(catalog_->choicesFor(*plan, selected_));
}

void EditingController::updateActions() {
  viz::StudioSession* s = window_->session();
  const bool plan = s->plan() != nullptr;
  const bool op = plan && selected_ >= 0 && static_cast<size_t>(selected_) < s->plan()->ops.size() &&
                  !s->plan()->ops[static_cast<size_t>(selected_)].isView;
  for (const char* name : {"cutBefore", "mergeBefore", "moveToVeu", "shape0", "shape1", "shape2", "shape4"})
    action(QLatin1String(name))->setEnabled(op);
  // The checked shape: the operator's pin, else "chosen by the policy".
  int pinned = 0;
  if (op) {
    const auto& shapes = s->constraints().shapeFor;
    if (auto it = shapes.find(s->plan()->ops[static_cast<size_t>(selected_)].name); it != shapes.end()) pinned = it->second;
  }
  for (const int shape : {0, 1, 2, 4}) action(QStringLiteral("shape%1").arg(shape))->setChecked(op && shape == pinned);
  action(QStringLiteral("loadEdits"))->setEnabled(plan);
  action(QStringLiteral("saveEdits"))->setEnabled(plan);
  action(QStringLiteral("compare"))->setEnabled(s->graph() != nullptr);
}

void EditingController::onRejected(const QString& text, const QString& reason, const QList<int>& ops) {
  viz::TimelineView* view = window_->timelinePage()->view();
  view->selectOps(ops);
  QList<schedule::RTask> tasks;
  const viz::StudioSession* s = window_->session();
  if (const auto& r = s->lastRejection())
    if (auto plan = r->rejectedPlan ? r->rejectedPlan : s->plan()) tasks = viz::ScheduleEditor::rejectedTasks(*r, *plan);
  view->highlightTasks(tasks);
  if (QDockWidget* d = window_->dock(tr("Diagnostics"))) d->raise();
  const QString first = reason.section(QLatin1Char('\n'), 0, 0);
  window_->statusBar()->showMessage(tr("Refused: %1 — %2").arg(text, first), 15000);
}

void EditingController::onTaskDropped(schedule::RTask task, int /*program*/, int targetVeu, int targetOrderHint,
                                      bool wholeOperator) {
  auto plan = window_->session()->plan();
  if (!plan || task.op < 0 || static_cast<size_t>(task.op) >= plan->ops.size()) return;
  const QString node = QString::fromStdString(plan->ops[static_cast<size_t>(task.op)].name);
  // A pin's vEU counts within the operator's own program, the one the rTask
  // was dragged in, so `program` needs no translation here.
  if (wholeOperator)
    editor_->moveOp(node, targetVeu, targetOrderHint);
  else
    editor_->moveTask(node, task.rtask, targetVeu, targetOrderHint);
}

void EditingController::setPolicy(const QString& policy) {
  viz::StudioSession* s = window_->session();
  if (!s->hasModel() || policy == s->policy()) {
    s->setPolicy(policy);
    return;
  }
  editor_->undoStack()->push(new viz::PolicyCommand(s, s->policy(), policy));  // push runs redo()
}

void EditingController::moveSelected() {
  auto plan = window_->session()->plan();
  const QString node = selectedNode();
  if (!plan || node.isEmpty()) return;
  // The vEUs of the program the operator runs in, for the dialog's hint.
  int veus = 0;
  for (const auto& info : plan->programs) {
    bool found = false;
    for (const auto& stream : info.program.streams()) {
      for (const auto& ins : stream)
        if (const auto* e = std::get_if<schedule::Exec>(&ins); e && e->task.op == selected_) {
          found = true;
          break;
        }
      if (found) break;
    }
    if (found) {
      veus = info.program.numVEUs();
      break;
    }
  }
  bool ok = false;
  const int veu = QInputDialog::getInt(window_, tr("Move Operator"),
                                       tr("vEU for every rTask of %1 (its program has %2 vEUs):").arg(node).arg(veus),
                                       0, 0, 1 << 20, 1, &ok);
  if (ok) editor_->moveOp(node, veu);
}

void EditingController::loadEdits() {
  const QString path = QFileDialog::getOpenFileName(window_, tr("Load Schedule Edits"), {}, tr("Schedule edits (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  if (!editor_->loadEdits(path, &error) && !error.isEmpty())
    QMessageBox::warning(window_, tr("Load Schedule Edits"), error);
}

void EditingController::saveEdits() {
  const QString path = QFileDialog::getSaveFileName(window_, tr("Save Schedule Edits"), QStringLiteral("edits.json"),
                                                    tr("Schedule edits (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  if (!editor_->saveEdits(path, &error)) QMessageBox::warning(window_, tr("Save Schedule Edits"), error);
}

void EditingController::showCompare() {
  viz::StudioSession* s = window_->session();
  if (!s->optimized()) return;
  compare_->setModel(comparedModel(*s), s->device());
  compareWindow_->show();
  compareWindow_->raise();
  compare_->compare();
}

}  // namespace rammer::studio

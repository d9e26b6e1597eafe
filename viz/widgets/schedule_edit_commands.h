#pragma once
// Schedule edits as undo commands. QUndoCommand lives in Qt Gui, so these
// sit with the widgets rather than in the Qt-Core-only models.
//
// The session applies Constraints asynchronously (policy -> validate ->
// simulate on its worker) and may refuse them. So an edit is pushed onto
// the undo stack only AFTER the session applied it: ScheduleEditor::edit()
// asks the session, and on constraintsApplied pushes a command whose first
// redo() does nothing (the session already holds `after`). A refused edit
// never reaches the stack; editRejected names the operators of the rTasks
// it would break. Undo/redo ask the session for `before` / `after` again.
#include <QList>
#include <QObject>
#include <QString>
#include <QUndoCommand>
#include <optional>

#include "core/schedule/constraints.h"
#include "viz/models/studio_session.h"

class QUndoStack;

namespace rammer::viz {

class ScheduleEditor;

class ScheduleEditCommand : public QUndoCommand {
 public:
  ScheduleEditCommand(ScheduleEditor* editor, schedule::Constraints before, schedule::Constraints after,
                      const QString& text);
  void undo() override;
  void redo() override;
  const schedule::Constraints& before() const { return before_; }
  const schedule::Constraints& after() const { return after_; }

 private:
  ScheduleEditor* editor_;
  schedule::Constraints before_;
  schedule::Constraints after_;
  bool applied_ = true;  // pushed after the session applied it: skip the first redo
};

class ScheduleEditor : public QObject {
  Q_OBJECT

 public:
  explicit ScheduleEditor(StudioSession* session, QObject* parent = nullptr);

  StudioSession* session() const { return session_; }
  QUndoStack* undoStack() const { return stack_; }

  // Asks the session for `after`; on success an undoable command named
  // `text` is pushed. Returns the session's request id (0: nothing asked,
  // e.g. no model or no change).
  quint64 edit(const schedule::Constraints& after, const QString& text);
  quint64 pinKernel(const QString& node, const QString& kernel);  // empty kernel: unpin
  quint64 moveOp(const QString& node, int veu, int order = -1);
  quint64 moveTask(const QString& node, qint64 rtask, int veu, int order = -1);
  quint64 cutBefore(const QString& node);
  quint64 mergeBefore(const QString& node);
  // The vDevice shape of the program that runs `node` (1, 2 or 4 vEUs per
  // SM); 0 gives the choice back to the policy.
  quint64 pinShape(const QString& node, int veusPerSM);
  // Reads a schedule-edits file (docs/SCHEDULE_EDITS.md) and applies it as
  // one undoable edit; 0 and `error` set when the file cannot be read.
  quint64 loadEdits(const QString& path, QString* error = nullptr);
  // Writes the session's current Constraints as schedule-edits JSON.
  bool saveEdits(const QString& path, QString* error = nullptr) const;

  bool isPending() const { return pending_.has_value(); }

  // Plan ops named by a rejection: the validator's offending rTasks and the
  // operators the policy's messages name ("conv1[3] at vEU ...").
  static QList<int> rejectedOps(const ConstraintsRejection& rejection, const schedule::Plan& plan);
  // The individual rTasks: the validator's, then every "name[r]" the
  // policy's error messages name (ops of `plan`, rTask ids as written).
  static QList<schedule::RTask> rejectedTasks(const ConstraintsRejection& rejection, const schedule::Plan& plan);
  // The rTasks ("op[r]") the validator reported, then the messages.
  static QStringList rejectionLines(const ConstraintsRejection& rejection, const schedule::Plan* plan);

 signals:
  void editApplied(const QString& text);
  // `ops`: plan ops whose rTasks the edit would break (for the timeline).
  void editRejected(const QString& text, const QString& reason, const QList<int>& ops);
  void editDropped(const QString& text);

 private:
  friend class ScheduleEditCommand;
  struct Pending {
    quint64 request = 0;
    schedule::Constraints before;
    schedule::Constraints after;
    QString text;
    bool fromStack = false;  // an undo/redo, not a new edit
  };
  void requestFromStack(const schedule::Constraints& c, const QString& text);
  quint64 submit(Pending p);
  bool isOurs(quint64 request) const;
  void onApplied(quint64 request);
  void onRejected(quint64 request);
  void onDropped(quint64 request);

  StudioSession* session_;
  QUndoStack* stack_;
  std::optional<Pending> pending_;
  bool submitting_ = false;  // inside session_->setConstraints (it may answer at once)
};

}  // namespace rammer::viz

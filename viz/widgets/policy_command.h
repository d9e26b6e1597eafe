#pragma once
// Switching the scheduling policy as an undo command, so Ctrl+Z puts the
// previous policy back. Unlike a Constraints edit, a policy switch is never
// refused up front (every policy plans every model; a failed re-schedule
// makes the session put the policy back itself), so the command is pushed
// at once and its first redo() asks the session for the new policy.
#include <QString>
#include <QUndoCommand>

namespace rammer::viz {

class StudioSession;

class PolicyCommand : public QUndoCommand {
 public:
  PolicyCommand(StudioSession* session, QString before, QString after);
  void undo() override;
  void redo() override;
  const QString& before() const { return before_; }
  const QString& after() const { return after_; }

 private:
  StudioSession* session_;
  QString before_;
  QString after_;
};

}  // namespace rammer::viz

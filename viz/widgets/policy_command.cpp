#include "viz/widgets/policy_command.h"

#include <QObject>

#include "viz/models/studio_session.h"

namespace rammer::viz {

PolicyCommand::PolicyCommand(StudioSession* session, QString before, QString after)
    : QUndoCommand(QObject::tr("Policy %1 → %2").arg(before, after)),
      session_(session),
      before_(std::move(before)),
      after_(std::move(after)) {}

void PolicyCommand::undo() { session_->setPolicy(before_); }

void PolicyCommand::redo() { session_->setPolicy(after_); }

}  // namespace rammer::viz

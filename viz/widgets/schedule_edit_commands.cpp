#include "viz/widgets/schedule_edit_commands.h"

#include <QFile>
#include <QUndoStack>
#include <algorithm>
#include <cctype>
#include <set>

#include "core/schedule/schedule_edits.h"
#include "viz/models/constraint_edits.h"

namespace rammer::viz {

ScheduleEditCommand::ScheduleEditCommand(ScheduleEditor* editor, schedule::Constraints before,
                                         schedule::Constraints after, const QString& text)
    : QUndoCommand(text), editor_(editor), before_(std::move(before)), after_(std::move(after)) {}

void ScheduleEditCommand::undo() { editor_->requestFromStack(before_, QObject::tr("Undo %1").arg(text())); }

void ScheduleEditCommand::redo() {
  if (applied_) {
    applied_ = false;
    return;
  }
  editor_->requestFromStack(after_, QObject::tr("Redo %1").arg(text()));
}

ScheduleEditor::ScheduleEditor(StudioSession* session, QObject* parent)
    : QObject(parent), session_(session), stack_(new QUndoStack(this)) {
  connect(session_, &StudioSession::constraintsApplied, this, &ScheduleEditor::onApplied);
  connect(session_, &StudioSession::constraintsRejected, this, &ScheduleEditor::onRejected);
  connect(session_, &StudioSession::constraintsDropped, this, &ScheduleEditor::onDropped);
  // Edits name the nodes of one model.
  connect(session_, &StudioSession::modelLoaded, stack_, &QUndoStack::clear);
}

quint64 ScheduleEditor::edit(const schedule::Constraints& after, const QString& text) {
  if (!session_->hasModel()) return 0;
  const schedule::Constraints& before = session_->constraints();
  if (sameConstraints(before, after)) return 0;
  return submit(Pending{0, before, after, text, false});
}

quint64 ScheduleEditor::submit(Pending p) {
  pending_ = std::move(p);
  const schedule::Constraints after = pending_->after;
  submitting_ = true;
  const quint64 id = session_->setConstraints(after);
  submitting_ = false;
  if (pending_ && pending_->request == 0) pending_->request = id;
  return id;
}

void ScheduleEditor::requestFromStack(const schedule::Constraints& c, const QString& text) {
  submit(Pending{0, session_->constraints(), c, text, true});
}

bool ScheduleEditor::isOurs(quint64 request) const {
  return pending_ && (pending_->request == request || (submitting_ && pending_->request == 0));
}

void ScheduleEditor::onApplied(quint64 request) {
  if (!isOurs(request)) return;
  Pending p = std::move(*pending_);
  pending_.reset();
  if (!p.fromStack) stack_->push(new ScheduleEditCommand(this, std::move(p.before), std::move(p.after), p.text));
  emit editApplied(p.text);
}

void ScheduleEditor::onRejected(quint64 request) {
  if (!isOurs(request)) return;
  Pending p = std::move(*pending_);
  pending_.reset();
  QList<int> ops;
  QString reason;
  if (const auto& r = session_->lastRejection()) {
    if (auto plan = r->rejectedPlan ? r->rejectedPlan : session_->plan()) ops = rejectedOps(*r, *plan);
    reason = rejectionLines(*r, session_->plan().get()).join(QLatin1Char('\n'));
  }
  emit editRejected(p.text, reason, ops);
}

void ScheduleEditor::onDropped(quint64 request) {
  if (!isOurs(request)) return;
  const QString text = pending_->text;
  pending_.reset();
  emit editDropped(text);
}

quint64 ScheduleEditor::pinKernel(const QString& node, const QString& kernel) {
  const QString text = kernel.isEmpty() ? tr("Unpin rKernel of %1").arg(node) : tr("Pin %1 on %2").arg(kernel, node);
  return edit(withKernelPinned(session_->constraints(), node.toStdString(), kernel.toStdString()), text);
}

quint64 ScheduleEditor::moveOp(const QString& node, int veu, int order) {
  return edit(withOpMoved(session_->constraints(), node.toStdString(), veu, order),
              tr("Move %1 to vEU %2").arg(node).arg(veu));
}

quint64 ScheduleEditor::moveTask(const QString& node, qint64 rtask, int veu, int order) {
  return edit(withTaskMoved(session_->constraints(), node.toStdString(), rtask, veu, order),
              tr("Move %1[%2] to vEU %3").arg(node).arg(rtask).arg(veu));
}

quint64 ScheduleEditor::cutBefore(const QString& node) {
  return edit(withCutBefore(session_->constraints(), node.toStdString()), tr("Cut program before %1").arg(node));
}

quint64 ScheduleEditor::mergeBefore(const QString& node) {
  return edit(withMergeBefore(session_->constraints(), node.toStdString()), tr("Merge programs at %1").arg(node));
}

quint64 ScheduleEditor::pinShape(const QString& node, int veusPerSM) {
  const QString text = veusPerSM > 0 ? tr("Run %1 at %2 vEUs per SM").arg(node).arg(veusPerSM)
                                     : tr("Let the policy shape the vDevice of %1").arg(node);
  return edit(withShapePinned(session_->constraints(), node.toStdString(), veusPerSM), text);
}

quint64 ScheduleEditor::loadEdits(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot read %1: %2").arg(path, f.errorString());
    return 0;
  }
  const std::string text = f.readAll().toStdString();
  auto graph = session_->graph();
  auto c = schedule::parseScheduleEdits(text, graph.get(), path.toStdString());
  if (!c) {
    if (error) *error = QString::fromStdString(ir::formatDiagnostics(c.errors()));
    return 0;
  }
  return edit(*c, tr("Load edits %1").arg(path));
}

bool ScheduleEditor::saveEdits(const QString& path, QString* error) const {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = tr("cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  const std::string json = schedule::scheduleEditsToJson(session_->constraints());
  if (f.write(json.data(), static_cast<qint64>(json.size())) != static_cast<qint64>(json.size())) {
    if (error) *error = tr("cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

namespace {

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/'; }

// Whether `message` names an rTask of `name` ("name[3]") as a whole word.
bool namesTaskOf(const std::string& message, const std::string& name) {
  if (name.empty()) return false;
  const std::string needle = name + "[";
  for (size_t at = message.find(needle); at != std::string::npos; at = message.find(needle, at + 1))
    if (at == 0 || !isNameChar(message[at - 1])) return true;
  return false;
}

}  // namespace

QList<int> ScheduleEditor::rejectedOps(const ConstraintsRejection& rejection, const schedule::Plan& plan) {
  std::set<int> ops;
  if (rejection.validation)
    for (const auto& problem : rejection.validation->problems)
      for (const auto& t : problem.tasks)
        if (t.op >= 0 && static_cast<size_t>(t.op) < plan.ops.size()) ops.insert(t.op);
  for (const auto& d : rejection.diagnostics) {
    if (d.severity != ir::Severity::Error) continue;
    for (size_t i = 0; i < plan.ops.size(); ++i) {
      const auto& name = plan.ops[i].name;
      if ((!d.node.empty() && d.node == name) || namesTaskOf(d.message, name))
        ops.insert(static_cast<int>(i));
    }
  }
  return QList<int>(ops.begin(), ops.end());
}

QList<schedule::RTask> ScheduleEditor::rejectedTasks(const ConstraintsRejection& rejection,
                                                      const schedule::Plan& plan) {
  std::set<schedule::RTask> tasks;
  if (rejection.validation)
    for (const auto& problem : rejection.validation->problems)
      for (const auto& t : problem.tasks)
        if (t.op >= 0 && static_cast<size_t>(t.op) < plan.ops.size()) tasks.insert(t);
  for (const auto& d : rejection.diagnostics) {
    if (d.severity != ir::Severity::Error) continue;
    const std::string& m = d.message;
    for (size_t i = 0; i < plan.ops.size(); ++i) {
      const std::string needle = plan.ops[i].name + "[";
      if (plan.ops[i].name.empty()) continue;
      for (size_t at = m.find(needle); at != std::string::npos; at = m.find(needle, at + 1)) {
        if (at > 0 && isNameChar(m[at - 1])) continue;
        size_t p = at + needle.size();
        int64_t rtask = 0;
        bool digits = false;
        for (; p < m.size() && std::isdigit(static_cast<unsigned char>(m[p])) && rtask < (int64_t{1} << 40); ++p) {
          rtask = rtask * 10 + (m[p] - '0');
          digits = true;
        }
        if (digits && p < m.size() && m[p] == ']') tasks.insert({static_cast<int32_t>(i), rtask});
      }
    }
  }
  return QList<schedule::RTask>(tasks.begin(), tasks.end());
}

QStringList ScheduleEditor::rejectionLines(const ConstraintsRejection& rejection, const schedule::Plan* plan) {
  QStringList lines;
  if (rejection.validation) {
    const schedule::Plan* names = rejection.rejectedPlan ? rejection.rejectedPlan.get() : plan;
    QStringList tasks;
    for (const auto& problem : rejection.validation->problems)
      for (const auto& t : problem.tasks) {
        const bool named = names && t.op >= 0 && static_cast<size_t>(t.op) < names->ops.size();
        tasks << QStringLiteral("%1[%2]")
                     .arg(named ? QString::fromStdString(names->ops[static_cast<size_t>(t.op)].name)
                                : QStringLiteral("#%1").arg(t.op))
                     .arg(t.rtask);
      }
    tasks.removeDuplicates();
    if (!tasks.isEmpty()) lines << QObject::tr("rTasks it would break: %1").arg(tasks.join(QStringLiteral(", ")));
  }
  for (const auto& d : rejection.diagnostics)
    if (d.severity == ir::Severity::Error)
      lines << QString::fromStdString(ir::formatDiagnostic(d));
  return lines;
}

}  // namespace rammer::viz

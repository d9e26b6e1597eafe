// Schedule edits through the undo stack on a real session: a kernel pin is
// applied, undone and redone (Constraints and the plan's rKernel follow);
// edits the policy refuses never reach the stack and name the rTasks they
// would break; edits saved as JSON read back equal (also through the
// CLI's parser) and load as one undoable edit. Waits are generous; nothing
// asserts on time.
#include "viz/widgets/schedule_edit_commands.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>

#include "core/schedule/schedule_edits.h"
#include "tests/viz/editing_fixtures.h"
#include "viz/models/constraint_edits.h"
#include "viz/models/kernel_choice_model.h"
#include "viz/widgets/policy_command.h"

namespace rammer::viz {
namespace {

constexpr int kWaitMs = 120000;

runtime::CudaCapability noGpu() {
  runtime::CudaCapability c;
  c.message = "no CUDA driver (test)";
  return c;
}

class ScheduleEditorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    session.setCapability(noGpu());
    QSignalSpy done(&session, &StudioSession::jobFinished);
    session.openModel(QString::fromStdString(viztest::sampleCnnPath()));
    ASSERT_TRUE(done.wait(kWaitMs));
    ASSERT_TRUE(done.first().at(1).toBool());
    ASSERT_TRUE(session.plan());
  }
  void TearDown() override { session.waitForWorkers(); }

  std::string kernelOf(const std::string& node) const {
    const int op = viztest::opIndex(*session.plan(), node);
    return op < 0 ? std::string() : session.plan()->ops[static_cast<size_t>(op)].kernel.name;
  }

  // A candidate of `node` other than the plan's choice.
  std::string otherKernel(const std::string& node) const {
    auto catalog = KernelChoiceCatalog::build(*session.graph(), session.plan()->device);
    EXPECT_TRUE(catalog);
    for (const auto& row : catalog->choicesFor(*session.plan(), viztest::opIndex(*session.plan(), node)).rows)
      if (!row.chosen) return row.name;
    return {};
  }

  bool waitApplied() {
    QSignalSpy applied(&session, &StudioSession::constraintsApplied);
    return applied.wait(kWaitMs);
  }

  StudioSession session;
  ScheduleEditor editor{&session};
};

TEST_F(ScheduleEditorTest, KernelPinUndoesAndRedoes) {
  const std::string original = kernelOf("stem");
  const std::string other = otherKernel("stem");
  ASSERT_FALSE(other.empty());
  ASSERT_NE(other, original);

  QSignalSpy applied(&editor, &ScheduleEditor::editApplied);
  EXPECT_NE(editor.pinKernel("stem", QString::fromStdString(other)), 0u);
  ASSERT_TRUE(applied.wait(kWaitMs));
  EXPECT_FALSE(editor.isPending());
  ASSERT_EQ(editor.undoStack()->count(), 1);
  EXPECT_EQ(kernelOf("stem"), other);
  EXPECT_EQ(session.constraints().kernelFor.at("stem"), other);
  const auto* cmd = dynamic_cast<const ScheduleEditCommand*>(editor.undoStack()->command(0));
  ASSERT_NE(cmd, nullptr);
  EXPECT_TRUE(cmd->before().empty());
  EXPECT_TRUE(sameConstraints(cmd->after(), session.constraints()));

  editor.undoStack()->undo();
  ASSERT_TRUE(waitApplied());
  EXPECT_TRUE(session.constraints().empty());
  EXPECT_EQ(kernelOf("stem"), original);
  EXPECT_EQ(editor.undoStack()->index(), 0);

  editor.undoStack()->redo();
  ASSERT_TRUE(waitApplied());
  EXPECT_EQ(session.constraints().kernelFor.at("stem"), other);
  EXPECT_EQ(kernelOf("stem"), other);
  EXPECT_EQ(editor.undoStack()->index(), 1);
  EXPECT_EQ(editor.undoStack()->count(), 1);
}

TEST_F(ScheduleEditorTest, ConsumerPinnedBeforeItsProducerIsRejectedAndNotKept) {
  const auto before = session.plan();
  QSignalSpy rejected(&editor, &ScheduleEditor::editRejected);
  QSignalSpy applied(&editor, &ScheduleEditor::editApplied);
  // pool1[0] ahead of its producer stem[0] on vEU 0.
  schedule::Constraints c;
  c.pins.push_back({"pool1", 0, 0, 0});
  c.pins.push_back({"stem", 0, 0, 1});
  EXPECT_NE(editor.edit(c, "bad order"), 0u);
  ASSERT_TRUE(rejected.wait(kWaitMs));
  EXPECT_EQ(applied.count(), 0);
  EXPECT_EQ(editor.undoStack()->count(), 0);
  EXPECT_FALSE(editor.isPending());
  EXPECT_TRUE(session.constraints().empty());
  EXPECT_EQ(session.plan(), before);

  const QString reason = rejected.first().at(1).toString();
  EXPECT_TRUE(reason.contains("pool1[0]")) << reason.toStdString();
  const auto ops = rejected.first().at(2).value<QList<int>>();
  EXPECT_TRUE(ops.contains(viztest::opIndex(*before, "pool1"))) << reason.toStdString();
  // Exactly the operators whose rTasks the refusal names are marked.
  for (int op : ops)
    EXPECT_TRUE(reason.contains(QString::fromStdString(before->ops[static_cast<size_t>(op)].name) + "["))
        << before->ops[static_cast<size_t>(op)].name;
}

TEST_F(ScheduleEditorTest, RejectedTasksAreTheRTasksTheMessagesName) {
  QSignalSpy rejected(&editor, &ScheduleEditor::editRejected);
  schedule::Constraints c;
  c.pins.push_back({"pool1", 0, 0, 0});
  c.pins.push_back({"stem", 0, 0, 1});
  editor.edit(c, "bad order");
  ASSERT_TRUE(rejected.wait(kWaitMs));
  ASSERT_TRUE(session.lastRejection());
  const auto tasks = ScheduleEditor::rejectedTasks(*session.lastRejection(), *session.plan());
  const int relu = viztest::opIndex(*session.plan(), "pool1");
  EXPECT_TRUE(tasks.contains(schedule::RTask{relu, 0}));
  // Every one is named "op[r]" in the reason shown to the person.
  const QString reason = rejected.first().at(1).toString();
  for (const auto& t : tasks)
    EXPECT_TRUE(reason.contains(QStringLiteral("%1[%2]")
                                    .arg(QString::fromStdString(session.plan()->ops[static_cast<size_t>(t.op)].name))
                                    .arg(t.rtask)))
        << t.op << "[" << t.rtask << "] in " << reason.toStdString();
}

TEST_F(ScheduleEditorTest, PolicyCommandSwitchesAndUndoRestores) {
  const QString original = session.policy();
  ASSERT_NE(original, QStringLiteral("sequential"));
  QUndoStack stack;
  QSignalSpy planned(&session, &StudioSession::planChanged);
  stack.push(new PolicyCommand(&session, original, QStringLiteral("sequential")));  // push runs redo()
  ASSERT_TRUE(planned.wait(kWaitMs));
  EXPECT_EQ(session.plan()->policy, "sequential");
  EXPECT_EQ(session.policy(), QStringLiteral("sequential"));

  stack.undo();
  ASSERT_TRUE(planned.wait(kWaitMs));
  EXPECT_EQ(session.plan()->policy, original.toStdString());
  EXPECT_EQ(session.policy(), original);
  stack.redo();
  ASSERT_TRUE(planned.wait(kWaitMs));
  EXPECT_EQ(session.plan()->policy, "sequential");
}

TEST_F(ScheduleEditorTest, VeuOutOfRangeIsRejected) {
  // A first, valid edit stays on the stack; the bad one does not join it.
  QSignalSpy applied(&editor, &ScheduleEditor::editApplied);
  editor.cutBefore("block.a");
  ASSERT_TRUE(applied.wait(kWaitMs));
  ASSERT_EQ(editor.undoStack()->count(), 1);
  const schedule::Constraints kept = session.constraints();

  QSignalSpy rejected(&editor, &ScheduleEditor::editRejected);
  editor.moveOp("stem", 1000000);
  ASSERT_TRUE(rejected.wait(kWaitMs));
  EXPECT_EQ(editor.undoStack()->count(), 1);
  EXPECT_TRUE(sameConstraints(session.constraints(), kept));
  const QString reason = rejected.first().at(1).toString();
  EXPECT_TRUE(reason.contains("stem")) << reason.toStdString();
  EXPECT_TRUE(reason.contains("vEU", Qt::CaseInsensitive)) << reason.toStdString();
}

TEST_F(ScheduleEditorTest, EditsSaveToJsonAndLoadBack) {
  QSignalSpy applied(&editor, &ScheduleEditor::editApplied);
  const std::string other = otherKernel("stem");
  editor.pinKernel("stem", QString::fromStdString(other));
  ASSERT_TRUE(applied.wait(kWaitMs));
  editor.cutBefore("block.a");
  ASSERT_TRUE(applied.wait(kWaitMs));
  editor.moveOp("block.a", 3);
  ASSERT_TRUE(applied.wait(kWaitMs));
  editor.pinShape("block.a", 2);
  ASSERT_TRUE(applied.wait(kWaitMs));
  ASSERT_EQ(editor.undoStack()->count(), 4);
  const schedule::Constraints saved = session.constraints();
  EXPECT_EQ(saved.pins.size(), 1u);
  EXPECT_EQ(saved.shapeFor.at("block.a"), 2);

  QTemporaryDir dir;
  const QString path = dir.filePath("edits.json");
  QString error;
  ASSERT_TRUE(editor.saveEdits(path, &error)) << error.toStdString();
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  // What `rammer ... --schedule edits.json` reads.
  auto parsed = schedule::parseScheduleEdits(f.readAll().toStdString(), session.graph().get(), "edits.json");
  ASSERT_TRUE(parsed) << ir::formatDiagnostics(parsed.errors());
  EXPECT_TRUE(sameConstraints(*parsed, saved));

  // Back to no edits, then load the file as one undoable edit.
  for (int i = 0; i < 4; ++i) {
    editor.undoStack()->undo();
    ASSERT_TRUE(waitApplied());
  }
  EXPECT_TRUE(session.constraints().empty());
  EXPECT_NE(editor.loadEdits(path, &error), 0u) << error.toStdString();
  ASSERT_TRUE(applied.wait(kWaitMs));
  EXPECT_TRUE(sameConstraints(session.constraints(), saved));
  EXPECT_EQ(kernelOf("stem"), other);
  // The load replaced the undone commands.
  EXPECT_EQ(editor.undoStack()->count(), 1);
  EXPECT_EQ(editor.undoStack()->index(), 1);

  // A malformed file is refused before anything is asked of the session.
  const QString bad = dir.filePath("bad.json");
  QFile b(bad);
  ASSERT_TRUE(b.open(QIODevice::WriteOnly));
  b.write(R"({"version": 1, "edits": [{"op": "pin_kernel", "node": "conv9", "kernel": "x"}]})");
  b.close();
  EXPECT_EQ(editor.loadEdits(bad, &error), 0u);
  EXPECT_TRUE(error.contains("conv9")) << error.toStdString();
  EXPECT_EQ(editor.loadEdits(dir.filePath("missing.json"), &error), 0u);
}

}  // namespace
}  // namespace rammer::viz

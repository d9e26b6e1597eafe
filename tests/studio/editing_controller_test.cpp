// Schedule editing in the main window: the Edit menu's actions and
// shortcuts exist, selecting an operator fills the rKernels dock, pinning
// from it is undoable with the Undo action, a refused edit highlights the
// operators it would break in the timeline, and the Compare window
// compares sequential with wavefront. Generous waits, no timing asserts.
#include "app/studio/editing_controller.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>

#include "app/studio/main_window.h"
#include "app/studio/timeline_page.h"
#include "viz/widgets/compare_view.h"
#include "viz/widgets/kernels_view.h"
#include "viz/widgets/schedule_edit_commands.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {
namespace {

constexpr int kWaitMs = 120000;

int opIndex(const schedule::Plan& plan, const std::string& name) {
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (plan.ops[i].name == name) return static_cast<int>(i);
  return -1;
}

TEST(EditingControllerTest, PinFromTheKernelsDockUndoesAndRefusalsAreHighlighted) {
  QTemporaryDir dir;
  MainWindowOptions options;
  options.settingsFile = dir.filePath(QStringLiteral("studio.ini"));
  runtime::CudaCapability none;
  none.message = "no CUDA driver (test)";
  options.capability = none;
  MainWindow window(options);
  // The window makes its controller; there is exactly one.
  ASSERT_EQ(window.findChildren<EditingController*>().size(), 1);
  auto* editing = window.findChild<EditingController*>();
  window.show();

  for (const char* name : {"undo", "redo", "cutBefore", "mergeBefore", "moveToVeu", "loadEdits", "saveEdits", "compare"})
    ASSERT_NE(editing->action(QLatin1String(name)), nullptr) << name;
  EXPECT_EQ(editing->action("undo")->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Z));
  EXPECT_EQ(editing->action("redo")->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  EXPECT_EQ(editing->action("saveEdits")->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  EXPECT_EQ(editing->action("compare")->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
  EXPECT_FALSE(editing->action("undo")->isEnabled());

  viz::StudioSession* session = window.session();
  QSignalSpy done(session, &viz::StudioSession::jobFinished);
  window.openModel(QStringLiteral(RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx"));
  ASSERT_TRUE(done.wait(kWaitMs));
  ASSERT_TRUE(session->plan());
  const int stem = opIndex(*session->plan(), "stem");
  ASSERT_GE(stem, 0);

  editing->selectOp(stem);
  viz::KernelsView* kernels = editing->kernelsView();
  ASSERT_GT(kernels->model()->rowCount(), 1);
  int other = -1;
  for (int row = 0; row < kernels->model()->rowCount(); ++row)
    if (!kernels->model()->at(row)->chosen) other = row;
  ASSERT_GE(other, 0);
  const std::string pinned = kernels->model()->at(other)->name;
  const std::string original = session->plan()->ops[static_cast<size_t>(stem)].kernel.name;

  QSignalSpy applied(editing->editor(), &viz::ScheduleEditor::editApplied);
  kernels->pinRow(other);
  ASSERT_TRUE(applied.wait(kWaitMs));
  EXPECT_EQ(session->plan()->ops[static_cast<size_t>(stem)].kernel.name, pinned);
  EXPECT_TRUE(editing->action("undo")->isEnabled());
  // The dock follows the new plan: the pinned row is now the chosen one.
  EXPECT_EQ(kernels->model()->at(other)->chosen, true);

  QSignalSpy sessionApplied(session, &viz::StudioSession::constraintsApplied);
  editing->action("undo")->trigger();
  ASSERT_TRUE(sessionApplied.wait(kWaitMs));
  EXPECT_EQ(session->plan()->ops[static_cast<size_t>(stem)].kernel.name, original);
  EXPECT_TRUE(session->constraints().empty());

  // A refused edit: not on the stack; its operators are highlighted.
  QSignalSpy rejected(editing->editor(), &viz::ScheduleEditor::editRejected);
  schedule::Constraints bad;
  bad.pins.push_back({"stem.relu", 0, 0, 0});
  bad.pins.push_back({"stem", 0, 0, 1});
  const int stackBefore = editing->editor()->undoStack()->count();
  editing->editor()->edit(bad, "bad order");
  ASSERT_TRUE(rejected.wait(kWaitMs));
  EXPECT_EQ(editing->editor()->undoStack()->count(), stackBefore);
  EXPECT_TRUE(window.timelinePage()->view()->selectedOps().contains(opIndex(*session->plan(), "stem.relu")));

  // Compare: sequential against wavefront on the loaded model.
  QSignalSpy compared(editing->compareView(), &viz::CompareView::compared);
  editing->action("compare")->trigger();
  ASSERT_TRUE(compared.wait(kWaitMs));
  EXPECT_TRUE(compared.first().first().toBool());
  EXPECT_TRUE(editing->compareWindow()->isVisible());
  const auto& c = *editing->compareView()->comparison();
  EXPECT_DOUBLE_EQ(c.ratio(), c.a.latencyUs / c.b.latencyUs);
  session->waitForWorkers();
}

}  // namespace
}  // namespace rammer::studio

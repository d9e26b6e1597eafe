// Teaching mode's view (issue #17 item 2): steps with buttons and keys, the
// explanation, the timeline of the plan built so far, the graph told which
// operators to highlight.
#include "viz/widgets/teaching_view.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QSignalSpy>
#include <QTest>

#include "viz/models/studio_pipeline.h"
#include "viz/models/teaching_model.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::viz {
namespace {

PipelineResult planInception() {
  PipelineRequest q;
  q.from = PipelineStage::Import;
  q.to = PipelineStage::Simulate;
  q.options = studioOptions(RAMMER_SOURCE_DIR "/samples/models/inception_block.onnx", {});
  PipelineResult r = runPipeline(q, {});
  EXPECT_TRUE(r.ok());
  return r;
}

TEST(TeachingView, StepsWithKeysAndButtonsAndShowsThePlanSoFar) {
  const PipelineResult r = planInception();
  ASSERT_TRUE(r.artifacts.plan && r.artifacts.predicted);
  TeachingView view;
  view.resize(1000, 700);
  view.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
  QSignalSpy changed(&view, &TeachingView::stepChanged);
  QSignalSpy ready(&view, &TeachingView::ready);
  view.setPlan(r.artifacts.plan, r.artifacts.predicted);
  EXPECT_TRUE(view.isBusy());  // the steps are read on a worker
  ASSERT_TRUE(ready.wait(60000));
  EXPECT_FALSE(view.isBusy());
  TeachingModel* m = view.model();
  ASSERT_GT(m->rowCount(), 2);
  EXPECT_EQ(m->current(), 0);
  ASSERT_FALSE(changed.isEmpty());
  EXPECT_EQ(changed.last().first().value<QList<int>>(), m->currentNodes());
  EXPECT_FALSE(changed.last().first().value<QList<int>>().isEmpty());
  EXPECT_TRUE(view.explanation().startsWith(QStringLiteral("wave 0 places 4 operators")));
  EXPECT_FALSE(view.previousAction()->isEnabled());
  // Step 1 shows only the first wave's rTasks, each selected.
  const size_t firstWave = view.timeline()->model().trace().tasks.size();
  EXPECT_GT(firstWave, 0u);
  EXPECT_LT(firstWave, r.artifacts.predicted->tasks.size());

  QTest::keyClick(&view, Qt::Key_Right);
  EXPECT_EQ(m->current(), 1);
  EXPECT_TRUE(view.explanation().startsWith(QStringLiteral("wave 1")));
  ASSERT_TRUE(ready.wait(60000));
  EXPECT_GT(view.timeline()->model().trace().tasks.size(), firstWave);
  QTest::keyClick(&view, Qt::Key_P);
  EXPECT_EQ(m->current(), 0);
  view.nextAction()->trigger();
  EXPECT_EQ(m->current(), 1);

  // The last step shows the whole plan; Next is then off.
  m->setCurrent(m->rowCount() - 1);
  QTRY_COMPARE_WITH_TIMEOUT(view.timeline()->model().trace().tasks.size(), r.artifacts.predicted->tasks.size(), 60000);
  EXPECT_FALSE(view.nextAction()->isEnabled());

  // Play steps on its own and stops at the end.
  m->setCurrent(0);
  view.playAction()->trigger();
  EXPECT_TRUE(view.isPlaying());
  QTRY_COMPARE_WITH_TIMEOUT(m->current(), 1, 3 * TeachingView::kPlayStepMs);
  QTest::keyClick(&view, Qt::Key_Space);
  EXPECT_FALSE(view.isPlaying());

  view.setPlan(nullptr, nullptr);
  EXPECT_EQ(m->rowCount(), 0);
  EXPECT_TRUE(view.explanation().isEmpty());
  EXPECT_FALSE(view.playAction()->isEnabled());
}

}  // namespace
}  // namespace rammer::viz

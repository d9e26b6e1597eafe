// The rKernels dock asks for a pin on double-click / "Pin" and for the
// policy's choice back; it edits nothing itself.
#include "viz/widgets/kernels_view.h"

#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTableView>

#include "tests/viz/editing_fixtures.h"

namespace rammer::viz {
namespace {

TEST(KernelsViewTest, PinRowAsksForThatKernel) {
  const PipelineResult r = viztest::planSampleCnn();
  ASSERT_TRUE(r.artifacts.plan && r.artifacts.optimized);
  auto catalog = KernelChoiceCatalog::build(*r.artifacts.optimized, r.artifacts.plan->device);
  ASSERT_TRUE(catalog);
  KernelsView view;
  QSignalSpy pin(&view, &KernelsView::pinRequested);
  const int stem = viztest::opIndex(*r.artifacts.plan, "stem");
  view.setChoices(catalog->choicesFor(*r.artifacts.plan, stem));
  ASSERT_GT(view.model()->rowCount(), 1);
  EXPECT_TRUE(view.headerText().contains("stem"));
  view.pinRow(1);
  ASSERT_EQ(pin.count(), 1);
  EXPECT_EQ(pin.first().at(0).toString(), "stem");
  EXPECT_EQ(pin.first().at(1).toString().toStdString(), view.model()->at(1)->name);
  view.pinRow(99);  // no such row: nothing asked
  EXPECT_EQ(pin.count(), 1);
  view.setMessage("nothing selected");
  EXPECT_EQ(view.model()->rowCount(), 0);
}

}  // namespace
}  // namespace rammer::viz

#include "viz/widgets/graph_page.h"

#include <gtest/gtest.h>

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include "tests/viz/viz_test_graphs.h"
#include "viz/widgets/graph_view.h"

namespace rammer::viz {
namespace {

TEST(GraphPage, TypingInTheSearchBoxSearchesTheView) {
  GraphPage page;
  QSignalSpy done(page.view(), &GraphView::layoutFinished);
  page.view()->setGraph(std::make_shared<const ir::Graph>(viztest::diamond()));
  ASSERT_TRUE(done.wait(120000));
  QTest::keyClicks(page.searchBox(), "op:Relu");
  EXPECT_EQ(page.view()->searchMatches(), QList<int>({1}));
  QLabel* count = nullptr;
  for (QLabel* l : page.findChildren<QLabel*>())
    if (l->text() == "1 / 1") count = l;
  EXPECT_NE(count, nullptr) << "match counter not shown";
  page.searchBox()->clear();
  EXPECT_TRUE(page.view()->searchMatches().isEmpty());
}

}  // namespace
}  // namespace rammer::viz

#include "viz/widgets/inspector_view.h"

#include <gtest/gtest.h>

#include <QTreeView>

#include "tests/viz/viz_test_graphs.h"
#include "viz/models/inspector_model.h"

namespace rammer::viz {
namespace {

TEST(InspectorView, ShowsTheNodeWithSectionsOpen) {
  const ir::Graph g = viztest::diamond();
  InspectorView view;
  view.showNode(g, 0);
  InspectorModel* m = view.model();
  EXPECT_EQ(m->node(), 0);
  const QModelIndex params = m->section("Parameters");
  ASSERT_TRUE(params.isValid());
  EXPECT_TRUE(view.tree()->isExpanded(params));
  EXPECT_TRUE(view.tree()->isExpanded(m->child(params, "w")));  // statistics visible
  view.clear();
  EXPECT_EQ(m->rowCount(), 0);
}

}  // namespace
}  // namespace rammer::viz

// Failure as a value: a pass that cannot run returns diagnostics, and the
// manager hands them on naming the pass; nothing is thrown.
#include <gtest/gtest.h>

#include <memory>

#include "core/passes/pass_manager.h"
#include "core/passes/shape_inference_pass.h"
#include "tests/support/graph_builder.h"

using namespace rammer;
using rammer::testing::GraphBuilder;

namespace {

class RefusingPass : public passes::Pass {
 public:
  std::string name() const override { return "refusing"; }
  passes::PassResult run(ir::Graph&, passes::PassContext&) override {
    return ir::makeError("the pattern needs a constant weight", "conv1");
  }
};

class ChangingPass : public passes::Pass {
 public:
  std::string name() const override { return "changing"; }
  passes::PassResult run(ir::Graph&, passes::PassContext& ctx) override {
    ctx.note("changed nothing really");
    ++runs;
    return false;
  }
  int runs = 0;
};

ir::Graph relu() {
  GraphBuilder b;
  b.output(b.op("Relu", "relu", {b.input("x", {2, 3})}));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

}  // namespace

TEST(PassManager, AFailingPassIsADiagnosticNamingIt) {
  passes::PassManager pm;
  auto first = std::make_unique<ChangingPass>();
  ChangingPass* before = first.get();
  pm.add(std::move(first));
  pm.add(std::make_unique<RefusingPass>());
  pm.add(std::make_unique<ChangingPass>());
  ir::Graph g = relu();
  passes::PassContext ctx;
  auto records = pm.run(g, ctx);
  ASSERT_FALSE(records.ok());
  ASSERT_EQ(records.errors().size(), 1u);
  EXPECT_EQ(records.errors()[0].message, "pass refusing failed: the pattern needs a constant weight");
  EXPECT_EQ(records.errors()[0].node, "conv1");
  EXPECT_EQ(before->runs, 1);  // the passes before it ran; the one after did not
}

TEST(PassManager, ShapeInferenceReportsATypeErrorAsAValue) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto y = b.input("y", {4, 5});
  b.output(b.op("Add", "add", {x, y}));
  passes::PassContext ctx;
  passes::PassResult r = passes::ShapeInferencePass().run(b.graph(), ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("broadcast"), std::string::npos) << r.errorText();
}

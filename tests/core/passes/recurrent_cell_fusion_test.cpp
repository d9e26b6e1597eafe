// RecurrentCellFusion (issue #27 item 4): each step's recurrent MatMul
// moves into its cell at small batch. The reference executor gives the same
// outputs before and after the standard pipeline for every LSTM and GRU
// form; the counts say which products moved; a batch over the gates
// variant's budget, a product read twice, and a non-constant R^T keep
// their MatMul; lstm_tc (10 layers x 100 steps) becomes one operator per
// step plus its input products.
#include <gtest/gtest.h>

#include "core/ops/rnn/cell_ops.h"
#include "core/passes/pass_manager.h"
#include "tests/core/passes/rnn_graphs.h"

using namespace rammer;
using namespace rammer::rnn_test;

namespace {

size_t movedNotes(const std::vector<std::string>& notes) {
  size_t n = 0;
  for (const auto& s : notes) n += s.find("into the gates of") != std::string::npos ? 1 : 0;
  return n;
}

// Cells whose recurrent product is their own (the R^T slot set).
size_t fusedCells(const ir::Graph& g) {
  size_t n = 0;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    const ir::Node& node = g.node(static_cast<ir::NodeId>(i));
    const ops::CellRecurrence* rec = node.removed ? nullptr : ops::cellRecurrence(node.opType);
    n += rec && node.input(rec->weightSlot) != ir::kNone ? 1 : 0;
  }
  return n;
}

}  // namespace

TEST(RecurrentCellFusion, EveryLstmAndGruFormKeepsItsOutputs) {
  struct Case {
    const char* label;
    RnnConfig config;
    size_t cellsPerStep;  // cell nodes a step of one direction becomes
  };
  std::vector<Case> cases;
  {
    RnnConfig c;
    c.initial = State::Input;
    c.peepholes = true;
    c.direction = "bidirectional";
    cases.push_back({"lstm bidirectional, peepholes, initial state", c, 1});
  }
  {
    RnnConfig c;
    c.layers = 2;
    c.layout = 1;
    c.extra.set("clip", 0.8f);
    cases.push_back({"lstm stacked, layout 1, clip", c, 1});
  }
  {
    RnnConfig c;
    c.op = "GRU";
    c.initial = State::Constant;
    cases.push_back({"gru", c, 2});
  }
  {
    RnnConfig c;
    c.op = "GRU";
    c.linearBeforeReset = true;
    c.direction = "reverse";
    cases.push_back({"gru linear_before_reset, reverse", c, 1});
  }
  for (Case& k : cases) {
    SCOPED_TRACE(k.label);
    Built bt = buildRnn(k.config);
    const auto notes = lowerAndCompare(bt);
    const ir::Graph& g = bt.b.graph();
    const RnnConfig& c = k.config;
    const size_t steps = static_cast<size_t>(c.seq * c.dirs() * c.layers);
    // Every recurrent product moved: what is left are the input products.
    const size_t recurrent = k.cellsPerStep * (c.initial == State::None ? steps - c.dirs() * c.layers : steps);
    EXPECT_EQ(fusedCells(g), recurrent);
    EXPECT_EQ(movedNotes(notes), recurrent);
    EXPECT_EQ(count(g, "MatMul"), steps);
  }
}

TEST(RecurrentCellFusion, LeavesProductsTheGatesVariantCannotTake) {
  {  // 5 rows x 4 LSTM gate blocks > 16 accumulators.
    RnnConfig c;
    c.batch = 5;
    Built bt = buildRnn(c);
    lowerAndCompare(bt);
    EXPECT_EQ(fusedCells(bt.b.graph()), 0u);
    EXPECT_EQ(count(bt.b.graph(), "MatMul"), 2u * 4u - 1u);
  }
  {  // The same batch fits GRU's 2- and 1-block cells.
    RnnConfig c;
    c.op = "GRU";
    c.batch = 5;
    Built bt = buildRnn(c);
    lowerAndCompare(bt);
    EXPECT_EQ(fusedCells(bt.b.graph()), 2u * 3u);
  }
  {  // Off: nothing moves.
    RnnConfig c;
    Built bt = buildRnn(c);
    lowerAndCompare(bt, 1e-4f, {.fuseRecurrentCells = false});
    EXPECT_EQ(fusedCells(bt.b.graph()), 0u);
  }
}

TEST(RecurrentCellFusion, LeavesAProductReadTwiceOrANonConstantWeight) {
  rammer::testing::GraphBuilder b;
  const int64_t B = 1, H = 4;
  auto xw = b.input("xw", {B, 4 * H});
  auto h = b.input("h", {B, H});
  auto shared = b.op("MatMul", "hr_shared", {h, b.constant("rT", randomTensor({H, 4 * H}, 3))});
  auto variable = b.op("MatMul", "hr_variable", {h, b.input("rT_in", {H, 4 * H})});
  for (auto [name, hr] : {std::pair{"a", shared}, std::pair{"b", variable}}) {
    auto outs = b.node("LstmCell", name, {xw, hr}, attrs({{"hidden_size", H}}), 2);
    b.graph().node(b.graph().value(outs[0]).producer).domain = ops::kRammerDomain;
    b.output(outs[0]);
  }
  b.output(shared);  // read by the graph as well
  ASSERT_TRUE(b.infer().empty());
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(b.graph(), ctx);
  ASSERT_TRUE(records.ok()) << records.errorText();
  EXPECT_EQ(fusedCells(b.graph()), 0u);
  EXPECT_EQ(count(b.graph(), "MatMul"), 2u);
}

// lstm_tc of the Rammer paper at batch 1: a step is one LstmCell that sums
// its own recurrent product; only the 1,000 input products stay MatMuls.
TEST(RecurrentCellFusion, LstmTcBecomesOneOperatorPerStep) {
  Built bt = buildRnn(lstmTcConfig());
  lowerAndCompare(bt);
  EXPECT_EQ(count(bt.b.graph(), "LstmCell"), 1000u);
  EXPECT_EQ(fusedCells(bt.b.graph()), 1000u - 10u);  // t = 0 has no recurrent product
  EXPECT_EQ(count(bt.b.graph(), "MatMul"), 1000u);
}

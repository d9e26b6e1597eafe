// RNN lowering: the reference executor gives the same outputs before and
// after standardPipeline() for LSTM and GRU variants (directions, layouts,
// biases, initial states, peepholes, stacked layers, omitted outputs); the
// cell structure (counts, names, the diagonal dependencies of stacked
// layers); and the nodes that must be left as they are.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "core/exec/reference_executor.h"
#include "core/ops/type_inference.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rnn_lowering.h"
#include "tests/core/passes/rnn_graphs.h"
#include "tests/support/graph_builder.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::GraphBuilder;
using namespace rammer::rnn_test;

namespace {

// The lowering alone: these tests count the MatMuls RecurrentCellFusion
// would move into the cells (recurrent_cell_fusion_test.cpp).
const passes::PassOptions kLowerOnly{.fuseRecurrentCells = false};

std::optional<ir::NodeId> nodeNamed(const ir::Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.numNodeSlots(); ++i)
    if (!g.node(static_cast<ir::NodeId>(i)).removed && g.node(static_cast<ir::NodeId>(i)).name == name)
      return static_cast<ir::NodeId>(i);
  return std::nullopt;
}

// Every node `id` depends on, transitively.
std::set<ir::NodeId> ancestors(const ir::Graph& g, ir::NodeId id) {
  std::set<ir::NodeId> seen;
  std::vector<ir::NodeId> todo{id};
  while (!todo.empty()) {
    const ir::NodeId n = todo.back();
    todo.pop_back();
    for (ir::ValueId v : g.node(n).inputs) {
      if (v == ir::kNone) continue;
      const ir::NodeId p = g.value(v).producer;
      if (p != ir::kNone && seen.insert(p).second) todo.push_back(p);
    }
  }
  return seen;
}

std::string cellName(const std::string& rnn, int layer, int64_t t, bool rev = false, const char* what = "cell") {
  return rnn + "/l" + std::to_string(layer) + (rev ? "/rev" : "") + "/t" + std::to_string(t) + "/" + what;
}

}  // namespace

TEST(RnnLowering, ForwardLstmWithEverythingKeepsOutputsAndBecomesCells) {
  RnnConfig c;
  c.initial = State::Constant;
  c.peepholes = true;
  Built bt = buildRnn(c);
  auto notes = lowerAndCompare(bt, 1e-4f, kLowerOnly);
  const ir::Graph& g = bt.b.graph();
  EXPECT_EQ(count(g, "LSTM"), 0u);
  EXPECT_EQ(count(g, "LstmCell"), 4u);
  EXPECT_EQ(count(g, "MatMul"), 8u);  // input and recurrent product per step
  EXPECT_EQ(count(g, "Gather"), 4u);  // x_t
  EXPECT_TRUE(hasNote(notes, "lowered LSTM 'lstm0' (forward, 4 steps, layer 0) into 4 cells"));
  for (int64_t t = 0; t < 4; ++t) EXPECT_TRUE(nodeNamed(g, cellName("lstm0", 0, t))) << t;
  const ir::Node& cell = g.node(*nodeNamed(g, cellName("lstm0", 0, 2)));
  EXPECT_EQ(cell.domain, "com.rammer");
  EXPECT_EQ(cell.attrs.getInt("hidden_size", 0), 5);
}

TEST(RnnLowering, NoInitialStateDropsTheFirstRecurrentProduct) {
  RnnConfig c;  // no initial_h / initial_c
  Built bt = buildRnn(c);
  lowerAndCompare(bt, 1e-4f, kLowerOnly);
  EXPECT_EQ(count(bt.b.graph(), "MatMul"), 7u);
  EXPECT_FALSE(nodeNamed(bt.b.graph(), cellName("lstm0", 0, 0, false, "hr")));
  EXPECT_TRUE(nodeNamed(bt.b.graph(), cellName("lstm0", 0, 1, false, "hr")));
}

TEST(RnnLowering, LstmVariantsKeepTheirOutputs) {
  int variant = 0;
  for (const char* dir : {"forward", "reverse", "bidirectional"})
    for (int64_t layout : {0, 1})
      for (State st : {State::None, State::Constant, State::Input})
        for (bool extras : {false, true}) {
          RnnConfig c;
          c.direction = dir;
          c.layout = layout;
          c.initial = st;
          c.bias = extras;
          c.peepholes = extras;
          c.seed = static_cast<uint32_t>(++variant);
          SCOPED_TRACE(std::string(dir) + " layout " + std::to_string(layout) + " state " +
                       std::to_string(static_cast<int>(st)) + " extras " + std::to_string(extras));
          Built bt = buildRnn(c);
          auto notes = lowerAndCompare(bt);
          EXPECT_EQ(count(bt.b.graph(), "LSTM"), 0u);
          EXPECT_EQ(count(bt.b.graph(), "LstmCell"), static_cast<size_t>(4 * c.dirs()));
          EXPECT_TRUE(hasNote(notes, std::string("(") + dir + ", 4 steps"));
        }
}

TEST(RnnLowering, ActivationsClipAndInputForgetCarryOver) {
  RnnConfig c;
  c.direction = "bidirectional";
  c.initial = State::Input;
  using Names = std::vector<std::string>;
  c.extra = attrs({{"activations", Names{"HardSigmoid", "Tanh", "Softsign", "Sigmoid", "Affine", "Tanh"}},
                   {"activation_alpha", std::vector<float>{0.25f, 0.8f}},
                   {"activation_beta", std::vector<float>{0.45f, 0.1f}},
                   {"clip", 0.9f},
                   {"input_forget", int64_t{1}}});
  Built bt = buildRnn(c);
  lowerAndCompare(bt);
  const ir::Graph& g = bt.b.graph();
  const ir::Node& rev = g.node(*nodeNamed(g, cellName("lstm0", 0, 3, true)));
  EXPECT_EQ(rev.attrs.getInt("direction_index", -1), 1);
  EXPECT_EQ(rev.attrs.getInt("num_directions", -1), 2);
  EXPECT_EQ(rev.attrs.getFloat("clip", 0.0f), 0.9f);
}

TEST(RnnLowering, OnlyUsedOutputsAreRebuilt) {
  RnnConfig c;
  c.omitY = true;     // Y slot omitted
  c.useYc = false;    // Y_c present but read by nobody
  Built bt = buildRnn(c);
  lowerAndCompare(bt);
  const ir::Graph& g = bt.b.graph();
  EXPECT_EQ(count(g, "Concat"), 0u);   // no Y; Y_h of one direction is a Reshape of h_T
  EXPECT_EQ(count(g, "Reshape"), 1u);
  EXPECT_EQ(g.outputs().size(), 1u);
  // Y_h = h of the last step.
  const ir::Node& reshape = g.node(g.value(g.outputs()[0]).producer);
  EXPECT_EQ(g.value(reshape.inputs[0]).producer, *nodeNamed(g, cellName("lstm0", 0, 3)));
}

TEST(RnnLowering, StackedLstmsKeepOutputsAndDropTheInnerSequences) {
  for (int layers : {2, 3})
    for (int64_t layout : {0, 1}) {
      RnnConfig c;
      c.layers = layers;
      c.layout = layout;
      c.initial = State::Input;
      c.peepholes = true;
      c.seed = static_cast<uint32_t>(layers * 10 + layout);
      SCOPED_TRACE(std::to_string(layers) + " layers, layout " + std::to_string(layout));
      Built bt = buildRnn(c);
      auto notes = lowerAndCompare(bt);
      const ir::Graph& g = bt.b.graph();
      EXPECT_EQ(count(g, "LstmCell"), static_cast<size_t>(4 * layers));
      EXPECT_EQ(count(g, "Squeeze"), 0u);  // inner Y and its Squeeze are dead
      EXPECT_EQ(count(g, "Concat"), 1u);   // only the last layer's Y
      EXPECT_EQ(count(g, "Gather"), 4u + static_cast<size_t>(2 * layers));  // x_t of layer 0; h0, c0 per layer
      EXPECT_TRUE(hasNote(notes, "lowered LSTM 'lstm" + std::to_string(layers - 1) + "' (forward, 4 steps, layer " +
                                     std::to_string(layers - 1) + ")"));
    }
}

// Cell (l, t) must depend on exactly the cells (l', t') with l' <= l and
// t' <= t: its x_t is the h_t of layer l-1 itself, not a slice of that
// layer's whole Y, so the cells form a diagonal wavefront.
TEST(RnnLowering, StackedLayersDependDiagonally) {
  RnnConfig c;
  c.layers = 3;
  c.seq = 6;
  c.initial = State::Constant;
  Built bt = buildRnn(c);
  lowerAndCompare(bt);
  const ir::Graph& g = bt.b.graph();
  const int64_t T = c.seq;
  std::map<ir::NodeId, std::pair<int, int64_t>> cellAt;
  for (int l = 0; l < 3; ++l)
    for (int64_t t = 0; t < T; ++t) {
      auto id = nodeNamed(g, cellName("lstm" + std::to_string(l), l, t));
      ASSERT_TRUE(id) << l << "," << t;
      cellAt[*id] = {l, t};
    }
  const ir::NodeId l2t0 = *nodeNamed(g, cellName("lstm2", 2, 0));
  const ir::NodeId l1tLast = *nodeNamed(g, cellName("lstm1", 1, T - 1));
  EXPECT_EQ(ancestors(g, l2t0).count(l1tLast), 0u) << "cell (2, 0) waits for cell (1, T-1)";
  for (const auto& [id, lt] : cellAt) {
    std::set<std::pair<int, int64_t>> deps;
    for (ir::NodeId a : ancestors(g, id))
      if (cellAt.count(a)) deps.insert(cellAt[a]);
    std::set<std::pair<int, int64_t>> expected;
    for (int l = 0; l <= lt.first; ++l)
      for (int64_t t = 0; t <= lt.second; ++t)
        if (std::make_pair(l, t) != lt) expected.insert({l, t});
    EXPECT_EQ(deps, expected) << "cell (" << lt.first << ", " << lt.second << ")";
  }
}

TEST(RnnLowering, StackedBidirectionalReadsJoinedSteps) {
  for (int64_t layout : {0, 1}) {
    RnnConfig c;
    c.direction = "bidirectional";
    c.layers = 2;
    c.layout = layout;
    c.initial = State::Constant;
    c.seed = static_cast<uint32_t>(40 + layout);
    SCOPED_TRACE("layout " + std::to_string(layout));
    Built bt = buildRnn(c);
    lowerAndCompare(bt);
    const ir::Graph& g = bt.b.graph();
    EXPECT_EQ(count(g, "LstmCell"), 16u);
    EXPECT_EQ(count(g, "Transpose"), 0u);
    // Layer 1's x_0 joins the two directions' h_0 of layer 0, so its forward
    // cell at t=0 needs layer 0's forward cell 0 but not its forward cell 3.
    const auto deps = ancestors(g, *nodeNamed(g, cellName("lstm1", 1, 0)));
    EXPECT_EQ(deps.count(*nodeNamed(g, cellName("lstm0", 0, 0))), 1u);
    EXPECT_EQ(deps.count(*nodeNamed(g, cellName("lstm0", 0, 3))), 0u);
    const ir::Node& xw = g.node(*nodeNamed(g, cellName("lstm1", 1, 0, false, "xw")));
    EXPECT_EQ(g.node(g.value(xw.inputs[0]).producer).opType, "Concat");
  }
}

// A symbolic batch: reshapes of the rebuilt outputs use -1 for it.
TEST(RnnLowering, UnknownBatchIsLoweredToo) {
  for (const char* op : {"LSTM", "GRU"})
    for (int64_t layout : {0, 1}) {
      RnnConfig c;
      c.op = op;
      c.direction = "bidirectional";
      c.layout = layout;
      c.layers = 2;
      c.batchUnknown = true;
      c.initial = State::Input;
      SCOPED_TRACE(std::string(op) + " layout " + std::to_string(layout));
      Built bt = buildRnn(c);
      lowerAndCompare(bt);
      const ir::Graph& g = bt.b.graph();
      EXPECT_EQ(count(g, op), 0u);
      // x_t of layer 0 and the initial states; layer 1 reads layer 0's h_t.
      EXPECT_EQ(count(g, "Gather"), 4u + 2u * 2u * (c.op == "LSTM" ? 2u : 1u));
      const ir::TensorType& y = g.value(g.outputs().front()).type;  // layer 0's Y_h
      EXPECT_EQ(y.shape, layout == 0 ? (ir::Shape{2, -1, 5}) : (ir::Shape{-1, 2, 5}));
    }
}

TEST(RnnLowering, GruVariantsKeepTheirOutputs) {
  int variant = 0;
  for (bool lbr : {false, true})
    for (const char* dir : {"forward", "reverse", "bidirectional"})
      for (State st : {State::None, State::Constant, State::Input})
        for (int64_t layout : {0, 1}) {
          RnnConfig c;
          c.op = "GRU";
          c.linearBeforeReset = lbr;
          c.direction = dir;
          c.initial = st;
          c.layout = layout;
          c.bias = variant % 2 == 0;
          c.layers = variant % 3 == 0 ? 2 : 1;
          c.seed = static_cast<uint32_t>(100 + ++variant);
          SCOPED_TRACE(std::string(dir) + (lbr ? " lbr" : "") + " state " + std::to_string(static_cast<int>(st)) +
                       " layout " + std::to_string(layout) + " layers " + std::to_string(c.layers));
          Built bt = buildRnn(c);
          lowerAndCompare(bt);
          const ir::Graph& g = bt.b.graph();
          const auto cells = static_cast<size_t>(4 * c.dirs() * c.layers);
          EXPECT_EQ(count(g, "GRU"), 0u);
          EXPECT_EQ(count(g, "GruCell"), lbr ? cells : 0u);
          EXPECT_EQ(count(g, "GruGates"), lbr ? 0u : cells);
          EXPECT_EQ(count(g, "GruCandidate"), lbr ? 0u : cells);
        }
}

TEST(RnnLowering, RaggedSequenceLensAreLeftAlone) {
  for (bool ragged : {true, false}) {
    GraphBuilder b;
    auto x = b.input("x", {4, 2, 3});
    auto lens = b.constant("lens", ir::Tensor::fromVector<int32_t>({2}, {4, ragged ? 2 : 4}));
    auto outs = b.node("LSTM", "lstm",
                       {x, b.constant("W", randomTensor({1, 20, 3}, 1)), b.constant("R", randomTensor({1, 20, 5}, 2)),
                        ir::kNone, lens},
                       attrs({{"hidden_size", int64_t{5}}}), 3);
    b.output(outs[0]);
    Built bt{std::move(b), {randomTensor({4, 2, 3}, 3)}};
    auto notes = lowerAndCompare(bt);
    EXPECT_EQ(count(bt.b.graph(), "LSTM"), ragged ? 1u : 0u);
    if (ragged) {
      EXPECT_TRUE(hasNote(notes, "left LSTM 'lstm' as it is: sequence_lens {4, 2} is ragged")) << notes.size();
    }
  }
}

TEST(RnnLowering, LeavesNodesItCannotUnroll) {
  // W as a graph input: its transpose is not a constant.
  GraphBuilder b;
  auto x = b.input("x", {3, 1, 2});
  auto w = b.input("W", {1, 12, 2});
  auto outs = b.node("GRU", "gru", {x, w, b.constant("R", randomTensor({1, 12, 4}, 2))},
                     attrs({{"hidden_size", int64_t{4}}}), 2);
  b.output(outs[1]);
  // sequence_lens from a graph input: lengths unknown when compiling.
  auto lensIn = b.input("lens", {1}, ir::DType::Int32);
  auto outs2 = b.node("LSTM", "lstm2",
                      {x, b.constant("W2", randomTensor({1, 16, 2}, 3)), b.constant("R2", randomTensor({1, 16, 4}, 4)),
                       ir::kNone, lensIn},
                      attrs({{"hidden_size", int64_t{4}}}), 3);
  b.output(outs2[1]);
  Built bt{std::move(b),
           {randomTensor({3, 1, 2}, 5), randomTensor({1, 12, 2}, 6), ir::Tensor::fromVector<int32_t>({1}, {3})}};
  auto notes = lowerAndCompare(bt);
  EXPECT_EQ(count(bt.b.graph(), "GRU"), 1u);
  EXPECT_EQ(count(bt.b.graph(), "LSTM"), 1u);
  EXPECT_TRUE(hasNote(notes, "left GRU 'gru' as it is: W or R is not a constant"));
  EXPECT_TRUE(hasNote(notes, "left LSTM 'lstm2' as it is: sequence_lens is not a constant"));
}

// The pass on its own: the types it gives new values are those inference
// finds, and a graph without LSTM/GRU nodes is not touched.
TEST(RnnLowering, PassAloneSetsTheTypesInferenceWouldFind) {
  RnnConfig c;
  c.direction = "bidirectional";
  c.layers = 2;
  c.initial = State::Input;
  c.op = "GRU";
  Built bt = buildRnn(c);
  ASSERT_TRUE(bt.b.infer().empty());
  ir::Graph& g = bt.b.graph();
  passes::PassContext ctx;
  ASSERT_TRUE(passes::RnnLowering().run(g, ctx).value());
  EXPECT_EQ(ctx.takeNotes().size(), 2u);
  g.compact();
  std::vector<ir::TensorType> set;
  for (size_t v = 0; v < g.numValues(); ++v) set.push_back(g.value(static_cast<ir::ValueId>(v)).type);
  ASSERT_TRUE(ops::inferTypes(g).empty());
  for (size_t v = 0; v < g.numValues(); ++v)
    EXPECT_EQ(g.value(static_cast<ir::ValueId>(v)).type, set[v]) << g.value(static_cast<ir::ValueId>(v)).name;

  GraphBuilder plain;
  plain.output(plain.op("Relu", "relu", {plain.input("x", {2, 3})}));
  ASSERT_TRUE(plain.infer().empty());
  EXPECT_FALSE(passes::RnnLowering().run(plain.graph(), ctx).value());
  EXPECT_TRUE(ctx.takeNotes().empty());
}

// lstm_tc of the Rammer paper: 10 stacked LSTM layers, 100 steps, hidden 256,
// batch 1.
// Structure and numerics only: the pass's speed on this graph is measured in
// tests/bench, never asserted in a unit test.
TEST(RnnLowering, LstmTcUnrollsIntoAThousandCells) {
  Built bt = buildRnn(lstmTcConfig());
  ASSERT_TRUE(bt.b.infer().empty());
  const auto before = runAll(bt.b.graph(), bt.inputs);

  passes::PassContext ctx;
  auto records = passes::standardPipeline(kLowerOnly).run(bt.b.graph(), ctx);
  ASSERT_TRUE(records.ok()) << records.errorText();
  const ir::Graph& lowered = bt.b.graph();
  EXPECT_EQ(count(lowered, "LstmCell"), 1000u);
  EXPECT_EQ(count(lowered, "LSTM"), 0u);
  EXPECT_EQ(count(lowered, "MatMul"), 2000u - 10u);  // no recurrent product at t = 0
  EXPECT_EQ(count(lowered, "Concat"), 0u);
  expectSame(runAll(lowered, bt.inputs), before);
}

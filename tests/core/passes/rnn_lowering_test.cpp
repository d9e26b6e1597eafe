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
#include "tests/support/graph_builder.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::GraphBuilder;

namespace {

ir::Tensor randomTensor(ir::Shape shape, uint32_t seed, float lo = -0.5f, float hi = 0.5f) {
  ir::Tensor t(ir::DType::Float32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& v : t.values<float>()) v = d(rng);
  return t;
}

size_t count(const ir::Graph& g, const std::string& op) {
  auto h = passes::opHistogram(g);
  return h.count(op) ? h[op] : 0;
}

enum class State { None, Constant, Input };

struct RnnConfig {
  std::string op = "LSTM";
  int64_t seq = 4, batch = 2, input = 3, hidden = 5;
  std::string direction = "forward";
  int64_t layout = 0;
  int layers = 1;
  bool bias = true, peepholes = false;
  State initial = State::None;
  bool omitY = false;              // last layer: Y slot omitted
  bool useYh = true, useYc = true; // last layer: Y_h / Y_c are graph outputs (else present but unread)
  bool linearBeforeReset = false;
  ir::Attributes extra;            // activations, clip, input_forget
  float weightScale = 0.5f;        // W, R, B, P uniform in [-scale, scale]
  bool batchUnknown = false;       // graph inputs declare the batch dim as unknown
  uint32_t seed = 1;

  int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
  int64_t gates() const { return op == "LSTM" ? 4 : 3; }
};

struct Built {
  GraphBuilder b;
  std::vector<ir::Tensor> inputs;  // bound to graph inputs, in order
};

// A stack of `layers` RNN nodes: layer l+1 reads layer l's Y through
// Squeeze (one direction) or Transpose + Reshape / Reshape (two), as
// exporters write it. Every layer's Y_h is a graph output too.
Built buildRnn(const RnnConfig& c) {
  Built out;
  GraphBuilder& b = out.b;
  const int64_t nd = c.dirs(), G = c.gates(), S = c.seq, B = c.batch, H = c.hidden;
  uint32_t seed = c.seed * 100;
  const ir::Shape xShape = c.layout == 0 ? ir::Shape{S, B, c.input} : ir::Shape{B, S, c.input};
  const int64_t declaredB = c.batchUnknown ? ir::kUnknownDim : B;
  ir::ValueId seqIn =
      b.input("x", c.layout == 0 ? ir::Shape{S, declaredB, c.input} : ir::Shape{declaredB, S, c.input});
  out.inputs.push_back(randomTensor(xShape, ++seed, -1.0f, 1.0f));
  const ir::Shape stateShape = c.layout == 0 ? ir::Shape{nd, B, H} : ir::Shape{B, nd, H};
  const ir::Shape declaredState = c.layout == 0 ? ir::Shape{nd, declaredB, H} : ir::Shape{declaredB, nd, H};
  int64_t in = c.input;
  for (int l = 0; l < c.layers; ++l) {
    const std::string name = (c.op == "LSTM" ? "lstm" : "gru") + std::to_string(l);
    auto weight = [&](const char* what, ir::Shape shape) {
      return b.constant(name + what, randomTensor(std::move(shape), ++seed, -c.weightScale, c.weightScale));
    };
    std::vector<ir::ValueId> ins = {seqIn, weight(".W", {nd, G * H, in}), weight(".R", {nd, G * H, H})};
    ins.push_back(c.bias ? weight(".B", {nd, 2 * G * H}) : ir::kNone);
    ins.push_back(ir::kNone);  // sequence_lens
    auto state = [&](const std::string& what) -> ir::ValueId {
      if (c.initial == State::None) return ir::kNone;
      if (c.initial == State::Constant) return b.constant(name + "." + what, randomTensor(stateShape, ++seed));
      out.inputs.push_back(randomTensor(stateShape, ++seed));
      return b.input(name + "." + what, declaredState);
    };
    ins.push_back(state("h0"));
    if (c.op == "LSTM") {
      ins.push_back(state("c0"));
      ins.push_back(c.peepholes ? weight(".P", {nd, 3 * H}) : ir::kNone);
    }
    ir::Attributes a = c.extra;
    a.set("hidden_size", H);
    a.set("direction", c.direction);
    if (c.layout != 0) a.set("layout", c.layout);
    if (c.op == "GRU" && c.linearBeforeReset) a.set("linear_before_reset", int64_t{1});
    auto outs = b.node(c.op, name, ins, a, c.op == "LSTM" ? 3 : 2);
    const bool last = l + 1 == c.layers;
    if (last) {
      if (c.omitY) {
        b.graph().node(b.graph().value(outs[0]).producer).outputs[0] = ir::kNone;
        b.graph().value(outs[0]).producer = ir::kNone;
      } else {
        b.output(outs[0]);
      }
      if (c.useYh) b.output(outs[1]);
      if (c.useYc && c.op == "LSTM") b.output(outs[2]);
      break;
    }
    b.output(outs[1]);
    if (nd == 1) {
      auto axes = b.constant(name + ".axes", ir::Tensor::fromVector<int64_t>({1}, {c.layout == 0 ? 1 : 2}));
      seqIn = b.op("Squeeze", name + ".squeeze", {outs[0], axes});
    } else {
      ir::ValueId y = outs[0];
      if (c.layout == 0)
        y = b.op("Transpose", name + ".transpose", {y}, attrs({{"perm", std::vector<int64_t>{0, 2, 1, 3}}}));
      auto shape = b.constant(name + ".shape", ir::Tensor::fromVector<int64_t>({3}, {0, 0, -1}));
      seqIn = b.op("Reshape", name + ".reshape", {y, shape});
    }
    in = nd * H;
  }
  return out;
}

std::vector<ir::Tensor> runAll(const ir::Graph& g, const std::vector<ir::Tensor>& inputs) {
  auto r = exec::runReference(g, inputs);
  EXPECT_TRUE(r.ok()) << r.errorText();
  return r ? *r : std::vector<ir::Tensor>{};
}

// |got - want| <= atol + rtol * |want| element-wise; returns the largest
// absolute difference seen.
double expectSame(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want, float rtol = 1e-4f,
                  float atol = 1e-6f) {
  EXPECT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t k = 0; k < want.size() && k < got.size(); ++k) {
    EXPECT_EQ(got[k].shape(), want[k].shape()) << "output " << k;
    if (got[k].shape() != want[k].shape()) continue;
    const float* a = got[k].data<float>();
    const float* e = want[k].data<float>();
    for (int64_t i = 0; i < want[k].numel(); ++i) {
      worst = std::max(worst, static_cast<double>(std::fabs(a[i] - e[i])));
      EXPECT_NEAR(a[i], e[i], atol + rtol * std::fabs(e[i])) << "output " << k << " element " << i;
      if (std::fabs(a[i] - e[i]) > atol + rtol * std::fabs(e[i])) return worst;  // one report is enough
    }
  }
  return worst;
}

std::vector<std::string> allNotes(const std::vector<passes::PassRecord>& records) {
  std::vector<std::string> notes;
  for (const auto& r : records) notes.insert(notes.end(), r.notes.begin(), r.notes.end());
  return notes;
}

bool hasNote(const std::vector<std::string>& notes, const std::string& text) {
  for (const auto& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// Runs the standard pipeline and checks that the outputs did not change;
// returns the notes.
std::vector<std::string> lowerAndCompare(Built& bt, float rtol = 1e-4f) {
  EXPECT_TRUE(bt.b.infer().empty());
  const auto before = runAll(bt.b.graph(), bt.inputs);
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(bt.b.graph(), ctx);
  EXPECT_TRUE(records.ok()) << records.errorText();
  if (!records) return {};
  expectSame(runAll(bt.b.graph(), bt.inputs), before, rtol);
  return allNotes(*records);
}

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
  auto notes = lowerAndCompare(bt);
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
  lowerAndCompare(bt);
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
  RnnConfig c;
  c.layers = 10;
  c.seq = 100;
  c.batch = 1;
  c.input = 256;
  c.hidden = 256;
  c.weightScale = 1.0f / 16;  // PyTorch's default init: U(-1/sqrt(hidden), 1/sqrt(hidden))
  c.omitY = true;  // the model's result is the last layer's Y_h
  c.useYc = false;
  Built bt = buildRnn(c);
  ASSERT_TRUE(bt.b.infer().empty());
  const auto before = runAll(bt.b.graph(), bt.inputs);

  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(bt.b.graph(), ctx);
  ASSERT_TRUE(records.ok()) << records.errorText();
  const ir::Graph& lowered = bt.b.graph();
  EXPECT_EQ(count(lowered, "LstmCell"), 1000u);
  EXPECT_EQ(count(lowered, "LSTM"), 0u);
  EXPECT_EQ(count(lowered, "MatMul"), 2000u - 10u);  // no recurrent product at t = 0
  EXPECT_EQ(count(lowered, "Concat"), 0u);
  expectSame(runAll(lowered, bt.inputs), before);
}

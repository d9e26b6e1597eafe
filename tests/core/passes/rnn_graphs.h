#pragma once
// RNN graphs for the pass tests (rnn_lowering_test, recurrent_cell_fusion_
// test): LSTM and GRU stacks in every configuration ONNX allows, random
// inputs, and a comparison of the reference executor's outputs before and
// after the standard pipeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/exec/reference_executor.h"
#include "core/passes/pass_manager.h"
#include "tests/support/graph_builder.h"

namespace rammer::rnn_test {

using rammer::testing::attrs;
using rammer::testing::GraphBuilder;

// RNN weights and states in [-0.5, 0.5] unless told otherwise.
inline ir::Tensor randomTensor(ir::Shape shape, uint32_t seed, float lo = -0.5f, float hi = 0.5f) {
  return testing::randomTensor(std::move(shape), seed, lo, hi);
}

inline size_t count(const ir::Graph& g, const std::string& op) {
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

// lstm_tc of the Rammer paper: 10 stacked LSTM layers, 100 steps, hidden
// 256, batch 1, PyTorch's default init (U(-1/sqrt(hidden), 1/sqrt(hidden)));
// the model's result is the last layer's Y_h.
inline RnnConfig lstmTcConfig() {
  RnnConfig c;
  c.layers = 10;
  c.seq = 100;
  c.batch = 1;
  c.input = 256;
  c.hidden = 256;
  c.weightScale = 1.0f / 16;
  c.omitY = true;
  c.useYc = false;
  return c;
}

// A stack of `layers` RNN nodes: layer l+1 reads layer l's Y through
// Squeeze (one direction) or Transpose + Reshape / Reshape (two), as
// exporters write it. Every layer's Y_h is a graph output too.
inline Built buildRnn(const RnnConfig& c) {
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

inline std::vector<ir::Tensor> runAll(const ir::Graph& g, const std::vector<ir::Tensor>& inputs) {
  auto r = exec::runReference(g, inputs);
  EXPECT_TRUE(r.ok()) << r.errorText();
  return r ? *r : std::vector<ir::Tensor>{};
}

// |got - want| <= atol + rtol * |want| element-wise; returns the largest
// absolute difference seen.
inline double expectSame(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want, float rtol = 1e-4f,
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

inline std::vector<std::string> allNotes(const std::vector<passes::PassRecord>& records) {
  std::vector<std::string> notes;
  for (const auto& r : records) notes.insert(notes.end(), r.notes.begin(), r.notes.end());
  return notes;
}

inline bool hasNote(const std::vector<std::string>& notes, const std::string& text) {
  for (const auto& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// Runs the standard pipeline and checks that the outputs did not change;
// returns the notes.
inline std::vector<std::string> lowerAndCompare(Built& bt, float rtol = 1e-4f, passes::PassOptions options = {}) {
  EXPECT_TRUE(bt.b.infer().empty());
  const auto before = runAll(bt.b.graph(), bt.inputs);
  passes::PassContext ctx;
  auto records = passes::standardPipeline(options).run(bt.b.graph(), ctx);
  EXPECT_TRUE(records.ok()) << records.errorText();
  if (!records) return {};
  expectSame(runAll(bt.b.graph(), bt.inputs), before, rtol);
  return allNotes(*records);
}

}  // namespace rammer::rnn_test

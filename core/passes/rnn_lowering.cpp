#include "core/passes/rnn_lowering.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ops/rnn/cell_ops.h"
#include "core/ops/rnn/rnn_activations.h"
#include "core/ops/rnn/rnn_spec.h"
#include "core/ops/type_inference.h"

namespace rammer::passes {

namespace {

using ir::kNone;
using ir::ValueId;
using ops::RnnKind;
using ops::RnnSpec;

// A sequence value seen as its time steps, each a [batch, features] value.
// Steps are made on first use: a Gather of the sequence, or, for the Y of a
// lowered RNN, its h_t values (joined by a Concat when there are two
// directions) so that readers depend on single steps, not on the whole Y.
struct StepView {
  ValueId source = kNone;  // the sequence: [S, B, F] (seqAxis 0) or [B, S, F] (seqAxis 1)
  int64_t seqAxis = 0;
  int layer = -1;                           // stacking depth of the RNN that made it; -1: sliced
  std::vector<std::vector<ValueId>> parts;  // per step, for a lowered producer; empty when sliced
  std::vector<ValueId> steps;               // per step, kNone until made
};

// One direction's parameters as the cells read them.
struct DirectionParams {
  ValueId wT = kNone;   // W^T [I, G*H]
  ValueId rT = kNone;   // R^T [H, G*H]; GRU without linear_before_reset: R_zr^T [H, 2H]
  ValueId rhT = kNone;  // GRU without linear_before_reset: R_h^T [H, H]
  ValueId bias = kNone; // [G*H]: Wb + Rb (GRU with linear_before_reset: Wb only in the h block)
  ValueId rbH = kNone;  // GRU with linear_before_reset: Rb_h [H]
  ValueId peep = kNone; // LSTM [3H]
  ValueId h0 = kNone, c0 = kNone;  // [B, H]
};

bool isUsed(const ir::Graph& g, ValueId v) {
  return v != kNone && (!g.value(v).consumers.empty() || g.value(v).isGraphOutput);
}

bool allZero(const ir::Tensor& t) {
  for (float x : t.values<float>())
    if (x != 0.0f) return false;
  return true;
}

// Rows [r0, r1) of a row-major [*, cols] matrix, transposed: [cols, r1 - r0].
// In tiles, so that neither side is walked with a large stride (lstm_tc
// transposes twenty 1024 x 256 matrices).
ir::Tensor transposedRows(const float* m, int64_t cols, int64_t r0, int64_t r1) {
  constexpr int64_t kTile = 16;
  const int64_t rows = r1 - r0;
  ir::Tensor t(ir::DType::Float32, {cols, rows});
  float* out = t.data<float>();
  const float* in = m + r0 * cols;
  for (int64_t rb = 0; rb < rows; rb += kTile)
    for (int64_t cb = 0; cb < cols; cb += kTile)
      for (int64_t r = rb; r < std::min(rb + kTile, rows); ++r)
        for (int64_t c = cb; c < std::min(cb + kTile, cols); ++c) out[c * rows + r] = in[r * cols + c];
  return t;
}

ir::Tensor vectorOf(const float* p, int64_t n) {
  return ir::Tensor::fromVector<float>({n}, std::vector<float>(p, p + n));
}

std::string joinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return v.size() > 8 ? s + ", ..." : s;
}

class Lowering {
 public:
  Lowering(ir::Graph& g, PassContext& ctx) : graph_(g), ctx_(ctx) {}
  bool lower(ir::NodeId id);

 private:
  std::optional<std::string> refusal(const ir::Node& n, const RnnSpec& s) const;
  DirectionParams params(const ir::Node& n, const RnnSpec& s, int64_t d, const std::string& base);
  ValueId stateSlice(ValueId state, const RnnSpec& s, int64_t d, const std::string& name);
  StepView& viewOf(ValueId x, int64_t seqAxis, int64_t seq);
  ValueId stepValue(StepView& v, int64_t t, const std::string& name, int64_t batch);
  // One step's cell; returns h_t and updates c (LSTM).
  ValueId emitCell(const ir::Node& n, const RnnSpec& s, int64_t d, const DirectionParams& p, ValueId x, ValueId h,
                   ValueId& c, const std::string& prefix);
  void buildOutput(ValueId out, const std::vector<ValueId>& parts, int64_t axis, ir::Shape shape,
                   const std::string& name);
  void addViews(ValueId y, const RnnSpec& s, int layer, const std::vector<std::vector<ValueId>>& hs);

  ValueId newValue(const std::string& name, ir::Shape shape, ir::DType dt = ir::DType::Float32) {
    return graph_.addValue(graph_.uniqueValueName(name), {dt, std::move(shape), true});
  }
  ValueId constant(const std::string& name, ir::Tensor t) {
    ValueId v = graph_.addValue(graph_.uniqueValueName(name), t.type());
    graph_.value(v).constant = std::move(t);
    return v;
  }
  ValueId index(int64_t i);
  void addNode(const std::string& op, const std::string& domain, const std::string& name, std::vector<ValueId> inputs,
               std::vector<ValueId> outputs, ir::Attributes attrs = {}) {
    while (!inputs.empty() && inputs.back() == kNone) inputs.pop_back();
    ir::Node node;
    node.opType = op;
    node.domain = domain;
    node.name = name;
    node.inputs = std::move(inputs);
    node.outputs = std::move(outputs);
    node.attrs = std::move(attrs);
    graph_.addNode(std::move(node));
  }
  ValueId matmul(ValueId a, ValueId b, const std::string& name, ir::Shape shape) {
    ValueId out = newValue(name, std::move(shape));
    addNode("MatMul", "", name, {a, b}, {out});
    return out;
  }

  ir::Graph& graph_;
  PassContext& ctx_;
  std::unordered_map<int64_t, StepView> views_;     // key: value id * 2 + seqAxis
  std::unordered_map<int64_t, ValueId> indices_;  // scalar int64 constants by value
};

std::optional<std::string> Lowering::refusal(const ir::Node& n, const RnnSpec& s) const {
  const ir::TensorType& xt = graph_.value(n.input(ops::kRnnX)).type;
  if (xt.dtype != ir::DType::Float32)
    return "X is " + std::string(ir::dtypeName(xt.dtype)) + ", only float32 is lowered";
  if (s.seq < 0) return std::string("the sequence length is not known");
  if (s.seq == 0) return std::string("the sequence is empty");
  if (s.hidden < 0 || s.input < 0) return std::string("the input or hidden size is not known");
  if (!ir::floatConstant(graph_, n.input(ops::kRnnW)) || !ir::floatConstant(graph_, n.input(ops::kRnnR)))
    return std::string("W or R is not a constant");
  if (n.input(ops::kRnnB) != kNone && !ir::floatConstant(graph_, n.input(ops::kRnnB))) return std::string("B is not a constant");
  if (s.kind == RnnKind::Lstm && n.input(ops::kRnnP) != kNone && !ir::floatConstant(graph_, n.input(ops::kRnnP)))
    return std::string("P is not a constant");
  if (ValueId lv = n.input(ops::kRnnSeqLens); lv != kNone) {
    const ir::Value& lens = graph_.value(lv);
    if (!lens.constant) return std::string("sequence_lens is not a constant");
    const std::vector<int64_t> l = lens.constant->toInt64s();
    for (int64_t x : l)
      if (x != s.seq)
        return "sequence_lens {" + joinInts(l) + "} is ragged (not all " + std::to_string(s.seq) +
               "): per-row lengths need the fused op";
  }
  return std::nullopt;
}

ValueId Lowering::index(int64_t i) {
  auto it = indices_.find(i);
  if (it != indices_.end()) return it->second;
  return indices_[i] = constant("rnn_lowering/index" + std::to_string(i), ir::Tensor::scalar<int64_t>(i));
}

// Direction d of initial_h / initial_c as [B, H]: an all-zero constant counts
// as omitted (the cells treat a missing state as zero), another constant is
// sliced here, anything else by a Gather.
ValueId Lowering::stateSlice(ValueId state, const RnnSpec& s, int64_t d, const std::string& name) {
  if (state == kNone) return kNone;
  const int64_t axis = s.layout == 0 ? 0 : 1;
  if (const ir::Tensor* t = ir::floatConstant(graph_, state)) {
    if (allZero(*t)) return kNone;
    const int64_t nd = s.numDirections, B = t->shape()[s.layout == 0 ? 1 : 0], H = s.hidden;
    ir::Tensor out(ir::DType::Float32, {B, H});
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < H; ++j)
        out.data<float>()[b * H + j] = t->data<float>()[s.layout == 0 ? (d * B + b) * H + j : (b * nd + d) * H + j];
    return constant(name, std::move(out));
  }
  ValueId out = newValue(name, {s.batch, s.hidden});
  ir::Attributes a;
  a.set("axis", axis);
  addNode("Gather", "", name, {state, index(d)}, {out}, std::move(a));
  return out;
}

DirectionParams Lowering::params(const ir::Node& n, const RnnSpec& s, int64_t d, const std::string& base) {
  const int64_t H = s.hidden, I = s.input, GH = s.gates * H;
  const bool gru = s.kind == RnnKind::Gru, lbr = gru && s.linearBeforeReset;
  const float* W = ir::floatConstant(graph_, n.input(ops::kRnnW))->data<float>() + d * GH * I;
  const float* R = ir::floatConstant(graph_, n.input(ops::kRnnR))->data<float>() + d * GH * H;
  DirectionParams p;
  p.wT = constant(base + "/W_T", transposedRows(W, I, 0, GH));
  if (gru && !lbr) {
    p.rT = constant(base + "/R_zr_T", transposedRows(R, H, 0, 2 * H));
    p.rhT = constant(base + "/R_h_T", transposedRows(R, H, 2 * H, 3 * H));
  } else {
    p.rT = constant(base + "/R_T", transposedRows(R, H, 0, GH));
  }
  if (const ir::Tensor* bt = ir::floatConstant(graph_, n.input(ops::kRnnB))) {
    const float* Wb = bt->data<float>() + d * 2 * GH;
    const float* Rb = Wb + GH;
    ir::Tensor bias(ir::DType::Float32, {GH});
    // Summed as the fused op sums them (rnn_cells.cpp), Rb_h aside when it
    // belongs inside the reset product.
    for (int64_t j = 0; j < GH; ++j) bias.data<float>()[j] = Wb[j] + (lbr && j >= 2 * H ? 0.0f : Rb[j]);
    p.bias = constant(base + "/bias", std::move(bias));
    if (lbr) p.rbH = constant(base + "/Rb_h", vectorOf(Rb + 2 * H, H));
  }
  if (s.kind == RnnKind::Lstm)
    if (const ir::Tensor* pt = ir::floatConstant(graph_, n.input(ops::kRnnP)))
      p.peep = constant(base + "/P", vectorOf(pt->data<float>() + d * 3 * H, 3 * H));
  p.h0 = stateSlice(n.input(ops::kRnnInitialH), s, d, base + "/h0");
  if (s.kind == RnnKind::Lstm) p.c0 = stateSlice(n.input(ops::kRnnInitialC), s, d, base + "/c0");
  return p;
}

StepView& Lowering::viewOf(ValueId x, int64_t seqAxis, int64_t seq) {
  auto [it, fresh] = views_.try_emplace(int64_t{x} * 2 + seqAxis);
  StepView& v = it->second;
  if (fresh) {
    v.source = x;
    v.seqAxis = seqAxis;
    v.steps.assign(static_cast<size_t>(seq), kNone);
  }
  return v;
}

ValueId Lowering::stepValue(StepView& v, int64_t t, const std::string& name, int64_t batch) {
  ValueId& step = v.steps[static_cast<size_t>(t)];
  if (step != kNone) return step;
  if (!v.parts.empty() && v.parts[t].size() == 1) return step = v.parts[t][0];
  const ir::TensorType& src = graph_.value(v.source).type;
  const int64_t features = src.rankKnown && src.shape.size() == 3 ? src.shape[2] : ir::kUnknownDim;
  step = newValue(name, {batch, features});
  ir::Attributes a;
  if (v.parts.empty()) {
    a.set("axis", v.seqAxis);
    addNode("Gather", "", name, {v.source, index(t)}, {step}, std::move(a));
  } else {
    a.set("axis", int64_t{1});
    addNode("Concat", "", name, v.parts[t], {step}, std::move(a));
  }
  return step;
}

ir::Attributes cellAttrs(const ir::Node& n, const RnnSpec& s, int64_t d) {
  ir::Attributes a;
  for (const char* k : {"activations", "activation_alpha", "activation_beta", "clip", "input_forget",
                        "linear_before_reset"})
    if (const ir::AttrValue* v = n.attrs.find(k)) a.set(k, *v);
  a.set("hidden_size", s.hidden);
  a.set("num_directions", s.numDirections);
  a.set("direction_index", d);
  return a;
}

ValueId Lowering::emitCell(const ir::Node& n, const RnnSpec& s, int64_t d, const DirectionParams& p, ValueId x,
                           ValueId h, ValueId& c, const std::string& prefix) {
  const int64_t B = s.batch, H = s.hidden, GH = s.gates * H;
  const std::string rd = ops::kRammerDomain;
  const ValueId xw = matmul(x, p.wT, prefix + "/xw", {B, GH});
  const ValueId hNew = newValue(prefix + "/h", {B, H});
  if (s.kind == RnnKind::Lstm) {
    const ValueId hr = h == kNone ? kNone : matmul(h, p.rT, prefix + "/hr", {B, GH});
    const ValueId cNew = newValue(prefix + "/c", {B, H});
    addNode(ops::kLstmCellOp, rd, prefix + "/cell", {xw, hr, p.bias, c, p.peep}, {hNew, cNew}, cellAttrs(n, s, d));
    c = cNew;
  } else if (s.linearBeforeReset) {
    const ValueId hr = h == kNone ? kNone : matmul(h, p.rT, prefix + "/hr", {B, GH});
    addNode(ops::kGruCellOp, rd, prefix + "/cell", {xw, hr, p.bias, p.rbH, h}, {hNew}, cellAttrs(n, s, d));
  } else {
    // The reset gate scales h before the candidate's recurrent product: two
    // element-wise ops around that MatMul.
    const ValueId hr = h == kNone ? kNone : matmul(h, p.rT, prefix + "/hr", {B, 2 * H});
    const ValueId z = newValue(prefix + "/z", {B, H});
    const ValueId rh = h == kNone ? kNone : newValue(prefix + "/rh", {B, H});
    addNode(ops::kGruGatesOp, rd, prefix + "/gates", {xw, hr, p.bias, h}, {z, rh}, cellAttrs(n, s, d));
    const ValueId rhr = h == kNone ? kNone : matmul(rh, p.rhT, prefix + "/rhr", {B, H});
    addNode(ops::kGruCandidateOp, rd, prefix + "/candidate", {xw, rhr, p.bias, z, h}, {hNew}, cellAttrs(n, s, d));
  }
  return hNew;
}

// `out` = Reshape(Concat(parts, axis), shape): how Y, Y_h and Y_c are put
// back together from [B, H] pieces (an unknown batch becomes -1).
void Lowering::buildOutput(ValueId out, const std::vector<ValueId>& parts, int64_t axis, ir::Shape shape,
                           const std::string& name) {
  if (!isUsed(graph_, out)) return;
  ValueId joined = parts[0];
  if (parts.size() > 1) {
    const ir::Shape piece = graph_.value(parts[0]).type.shape;  // [B, H]
    const auto n = static_cast<int64_t>(parts.size());
    joined = newValue(name + "/concat", axis == 0 ? ir::Shape{piece[0] < 0 ? -1 : n * piece[0], piece[1]}
                                                  : ir::Shape{piece[0], n * piece[1]});
    ir::Attributes a;
    a.set("axis", axis);
    addNode("Concat", "", name + "/concat", parts, {joined}, std::move(a));
  }
  for (int64_t& dim : shape) dim = dim < 0 ? -1 : dim;
  const ValueId shapeValue =
      constant(name + "/shape", ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(shape.size())}, shape));
  addNode("Reshape", "", name, {joined, shapeValue}, {out});
}

// Readers of a lowered Y that only drop (one direction) or merge (two) the
// direction axis get a view of the h_t values, so a stacked RNN reading them
// is lowered cell by cell against them.
void Lowering::addViews(ValueId y, const RnnSpec& s, int layer, const std::vector<std::vector<ValueId>>& hs) {
  if (y == kNone) return;
  const int64_t S = s.seq, nd = s.numDirections, seqAxis = s.layout == 0 ? 0 : 1;
  // Reshape and Squeeze keep the element order, so matching dims mean the
  // reader holds Y's elements as [S, B, nd*H] (or [B, S, nd*H]).
  auto sequenceOf = [&](ir::NodeId c) -> ValueId {
    const ir::Node& cn = graph_.node(c);
    if (!cn.domain.empty() || (cn.opType != "Squeeze" && cn.opType != "Reshape")) return kNone;
    const ValueId out = cn.output(0);
    if (out == kNone) return kNone;
    const ir::TensorType& t = graph_.value(out).type;
    if (!t.rankKnown || t.shape.size() != 3 || t.shape[seqAxis] != S || t.shape[2] != nd * s.hidden) return kNone;
    const int64_t b = t.shape[1 - seqAxis];
    return b == s.batch || b < 0 || s.batch < 0 ? out : kNone;
  };
  auto add = [&](ValueId seqValue) {
    if (seqValue == kNone) return;
    StepView& v = viewOf(seqValue, seqAxis, S);
    v.layer = layer;
    v.parts.assign(static_cast<size_t>(S), {});
    for (int64_t t = 0; t < S; ++t)
      for (int64_t d = 0; d < nd; ++d) v.parts[t].push_back(hs[d][t]);
  };
  const std::vector<ir::NodeId> readers = graph_.value(y).consumers;
  for (ir::NodeId c : readers) {
    if (nd == 1 || s.layout == 1) {
      add(sequenceOf(c));
      continue;
    }
    // [S, 2, B, H] -> Transpose(0, 2, 1, 3) -> Reshape [S, B, 2H], as
    // exporters write a bidirectional layer's output for the next layer.
    const ir::Node& tn = graph_.node(c);
    if (tn.opType != "Transpose" || !tn.domain.empty() || tn.output(0) == kNone ||
        tn.attrs.getInts("perm") != std::vector<int64_t>{0, 2, 1, 3})
      continue;
    const std::vector<ir::NodeId> next = graph_.value(tn.output(0)).consumers;
    for (ir::NodeId c2 : next) add(sequenceOf(c2));
  }
}

bool Lowering::lower(ir::NodeId id) {
  const ir::Node n = graph_.node(id);  // a copy: adding nodes moves the node table
  const RnnKind kind = n.opType == "LSTM" ? RnnKind::Lstm : RnnKind::Gru;
  const std::string base = n.name.empty() ? n.opType + std::to_string(id) : n.name;
  const std::string label = n.opType + " '" + base + "'";
  RnnSpec s;
  try {
    const ops::OpContext octx = ops::makeContext(graph_, n, {});
    s = ops::readRnnSpec(octx, kind);
    ops::readRnnActivations(octx, kind == RnnKind::Lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                                        : std::vector<std::string>{"Sigmoid", "Tanh"},
                            s.numDirections);
  } catch (const std::exception& e) {
    ctx_.note("left " + label + " as it is: " + e.what());
    return false;
  }
  if (auto why = refusal(n, s)) {
    ctx_.note("left " + label + " as it is: " + *why);
    return false;
  }

  const int64_t S = s.seq, nd = s.numDirections, B = s.batch, H = s.hidden;
  StepView& xv = viewOf(n.input(ops::kRnnX), s.layout == 0 ? 0 : 1, S);
  const int layer = xv.layer + 1;
  const std::string layerName = base + "/l" + std::to_string(layer);
  std::vector<std::vector<ValueId>> hs(static_cast<size_t>(nd), std::vector<ValueId>(static_cast<size_t>(S)));
  std::vector<ValueId> finalH(static_cast<size_t>(nd)), finalC(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d) {
    const std::string dirName = layerName + (nd == 2 && d == 1 ? "/rev" : "");
    const DirectionParams p = params(n, s, d, dirName);
    const bool reverse = nd == 2 ? d == 1 : s.reverse;
    ValueId h = p.h0, c = p.c0;
    for (int64_t step = 0; step < S; ++step) {
      const int64_t t = reverse ? S - 1 - step : step;
      const std::string prefix = dirName + "/t" + std::to_string(t);
      const ValueId x = stepValue(xv, t, prefix + "/x", B);
      h = emitCell(n, s, d, p, x, h, c, prefix);
      hs[d][t] = h;
    }
    finalH[d] = h;
    finalC[d] = c;
  }

  graph_.removeNode(id);
  // Y: steps in (t, direction) order, stacked on the batch-major axis.
  std::vector<ValueId> yParts;
  for (int64_t t = 0; t < S; ++t)
    for (int64_t d = 0; d < nd; ++d) yParts.push_back(hs[d][t]);
  const bool l0 = s.layout == 0;
  buildOutput(n.output(0), yParts, l0 ? 0 : 1, l0 ? ir::Shape{S, nd, B, H} : ir::Shape{B, S, nd, H}, base + "/Y");
  const ir::Shape stateShape = l0 ? ir::Shape{nd, B, H} : ir::Shape{B, nd, H};
  buildOutput(n.output(1), finalH, l0 ? 0 : 1, stateShape, base + "/Y_h");
  if (kind == RnnKind::Lstm) buildOutput(n.output(2), finalC, l0 ? 0 : 1, stateShape, base + "/Y_c");
  addViews(n.output(0), s, layer, hs);

  const char* dir = nd == 2 ? "bidirectional" : s.reverse ? "reverse" : "forward";
  const std::string cells = kind == RnnKind::Gru && !s.linearBeforeReset ? " cells (GruGates + GruCandidate each)"
                                                                           : " cells";
  ctx_.note("lowered " + label + " (" + dir + ", " + std::to_string(S) + " steps, layer " + std::to_string(layer) +
            ") into " + std::to_string(S * nd) + cells);
  return true;
}

}  // namespace

PassResult RnnLowering::run(ir::Graph& g, PassContext& ctx) {
  auto order = g.topologicalOrder();
  if (!order) return false;
  Lowering lowering(g, ctx);
  bool changed = false;
  // Producers first, so a stacked layer finds the views of the one below.
  for (ir::NodeId id : *order) {
    const ir::Node& n = g.node(id);
    if (n.removed || !n.domain.empty() || (n.opType != "LSTM" && n.opType != "GRU")) continue;
    changed = lowering.lower(id) || changed;
  }
  return changed;
}

}  // namespace rammer::passes

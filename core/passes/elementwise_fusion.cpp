#include "core/passes/elementwise_fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/ir/words.h"
#include "core/ops/broadcast.h"
#include "core/ops/math/fused_expr.h"

namespace rammer::passes {

namespace {

using ops::FusedExpr;

const std::map<std::string, std::string>& unaryFunctions() {
  static const std::map<std::string, std::string> m = {
      {"Neg", "neg"},   {"Abs", "abs"},           {"Sqrt", "sqrt"},         {"Exp", "exp"},
      {"Log", "log"},   {"Reciprocal", "reciprocal"}, {"Floor", "floor"}, {"Ceil", "ceil"},
      {"Erf", "erf"},   {"Sin", "sin"},           {"Cos", "cos"},           {"Sign", "sign"},
      {"Relu", "relu"}, {"Sigmoid", "sigmoid"},   {"Tanh", "tanh"},         {"Softplus", "softplus"},
      {"Softsign", "softsign"}, {"HardSwish", "hard_swish"}, {"Tan", "tan"},     {"Asin", "asin"},
      {"Acos", "acos"},         {"Atan", "atan"},           {"Sinh", "sinh"},   {"Cosh", "cosh"},
      {"Asinh", "asinh"},       {"Acosh", "acosh"},         {"Atanh", "atanh"}, {"Round", "round"}};
  return m;
}

const std::map<std::string, std::string>& binaryFunctions() {
  static const std::map<std::string, std::string> m = {
      {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"Div", "div"}, {"Pow", "pow"}, {"Max", "max"},
      {"Min", "min"}, {"Sum", "add"}, {"PRelu", "prelu"}};
  return m;
}

// A binary op still asking for opset-6 broadcast, or a PRelu whose 1-D
// slope is one value per channel of a rank > 2 input.
bool legacyBroadcastRemains(const ir::Graph& g, const ir::Node& n) {
  if (n.attrs.getInt("broadcast", 0) != 0) return true;
  if (n.opType != "PRelu" || n.input(1) == ir::kNone) return false;
  const ir::TensorType &x = g.value(n.input(0)).type, &slope = g.value(n.input(1)).type;
  if (!x.rankKnown || !slope.rankKnown) return true;
  return x.shape.size() > 2 && slope.shape.size() == 1 && slope.shape[0] != 1;
}

// The ops exprOfNode takes besides the two tables above.
const char* const kOtherFusedOps[] = {"Sum",  "Max",         "Min",             "Mean",   "LeakyRelu", "Elu",
                                      "Celu", "Selu",        "HardSigmoid",     "Clip",   "ThresholdedRelu",
                                      "Shrink", "BatchNormalization", "Mod", "Where", "Cast",
                                      "Equal",  "Less",        "LessOrEqual",     "Greater", "GreaterOrEqual",
                                      "Not",    "And",         "Or",              "Xor"};

const ir::Tensor* constantOf(const ir::Graph& g, ir::ValueId v) {
  return v == ir::kNone || !g.value(v).constant ? nullptr : &*g.value(v).constant;
}

// A bool constant as a float32 constant of 0s and 1s (a value the
// expression reads directly).
ir::ValueId boolAsFloat(ir::Graph& g, const ir::Tensor& c, const std::string& name) {
  ir::Tensor f(ir::DType::Float32, c.shape());
  for (int64_t i = 0; i < c.numel(); ++i) f.data<float>()[i] = c.data<bool>()[i] ? 1.0f : 0.0f;
  const ir::ValueId v = g.addValue(g.uniqueValueName(name), f.type());
  g.value(v).constant = std::move(f);
  return v;
}

// Where on float32 X and Y: a constant condition (a causal mask folded at
// import) becomes a float32 constant of 0s and 1s selected by where(); one
// computed at run time, a bool tensor held as int32 words (ir/words.h), is
// read by where_word().
std::optional<FusedExpr> whereExpr(ir::Graph& g, ir::NodeId id, std::vector<ir::ValueId>& slots) {
  const ir::Node& n = g.node(id);
  if (n.inputs.size() != 3 || n.input(0) == ir::kNone) return std::nullopt;
  for (size_t k = 1; k < 3; ++k)
    if (n.input(k) == ir::kNone || g.value(n.input(k)).type.dtype != ir::DType::Float32) return std::nullopt;
  const auto args = std::vector<FusedExpr>{FusedExpr::input(0), FusedExpr::input(1), FusedExpr::input(2)};
  const ir::Tensor* c = constantOf(g, n.input(0));
  if (!c) {
    if (g.value(n.input(0)).type.dtype != ir::DType::Bool) return std::nullopt;
    slots = n.inputs;
    return FusedExpr::call("where_word", args);
  }
  if (c->dtype() != ir::DType::Bool) return std::nullopt;
  const ir::ValueId m = boolAsFloat(g, *c, n.name + ".mask");
  slots = {m, g.node(id).input(1), g.node(id).input(2)};
  return FusedExpr::call("where", args);
}

// Cast to float32 of an integer or bool tensor computed at run time (BERT's
// padding mask turned into an additive bias): int_to_float() of its word.
std::optional<FusedExpr> castExpr(const ir::Graph& g, const ir::Node& n, std::vector<ir::ValueId>& slots) {
  if (n.inputs.size() != 1 || n.input(0) == ir::kNone || g.value(n.input(0)).constant) return std::nullopt;
  const ir::DType from = g.value(n.input(0)).type.dtype;
  slots = n.inputs;
  if (from == ir::DType::Float32) return FusedExpr::input(0);
  if (ir::wordKindOf(from) != ir::WordKind::Int) return std::nullopt;
  return FusedExpr::call("int_to_float", {FusedExpr::input(0)});
}

// Comparisons of float32 operands (exact in float) and logic on bools, as
// 0/1 values; the node writes a bool tensor (bool_to_word at the group's
// root, ElementwiseFusion::run). Integer comparisons stay with their own
// rKernel: int32 values past 2^24 do not compare exactly as floats.
std::optional<FusedExpr> predicateExpr(ir::Graph& g, ir::NodeId id, std::vector<ir::ValueId>& slots) {
  static const std::map<std::string, std::string> kCompare = {{"Equal", "equal"},
                                                              {"Less", "less"},
                                                              {"LessOrEqual", "less_equal"},
                                                              {"Greater", "greater"},
                                                              {"GreaterOrEqual", "greater_equal"}};
  static const std::map<std::string, std::string> kLogic = {
      {"Not", "logical_not"}, {"And", "logical_and"}, {"Or", "logical_or"}, {"Xor", "logical_xor"}};
  const ir::Node& n = g.node(id);
  if (g.value(n.output(0)).type.dtype != ir::DType::Bool) return std::nullopt;
  for (ir::ValueId v : n.inputs)
    if (v == ir::kNone) return std::nullopt;
  if (auto it = kCompare.find(n.opType); it != kCompare.end() && n.inputs.size() == 2) {
    for (ir::ValueId v : n.inputs)
      if (g.value(v).type.dtype != ir::DType::Float32) return std::nullopt;
    slots = n.inputs;
    return FusedExpr::call(it->second, {FusedExpr::input(0), FusedExpr::input(1)});
  }
  auto it = kLogic.find(n.opType);
  if (it == kLogic.end() || n.inputs.size() != (n.opType == "Not" ? 1u : 2u)) return std::nullopt;
  std::vector<FusedExpr> args;
  slots.clear();
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const ir::ValueId v = g.node(id).input(k);
    if (g.value(v).type.dtype != ir::DType::Bool) return std::nullopt;
    const int slot = static_cast<int>(k);
    if (const ir::Tensor* c = constantOf(g, v)) {
      slots.push_back(boolAsFloat(g, *c, g.node(id).name + ".mask"));
      args.push_back(FusedExpr::input(slot));
    } else {
      slots.push_back(v);
      args.push_back(FusedExpr::call("int_to_float", {FusedExpr::input(slot)}));
    }
  }
  return FusedExpr::call(it->second, args);
}

// A node's computation as an expression over its own input slots (x<slot>),
// or nothing when it is not a fusable float32 element-wise op. May add
// constants to the graph (BatchNormalization's scale and shift).
std::optional<FusedExpr> exprOfNode(ir::Graph& g, ir::NodeId id, std::vector<ir::ValueId>& slots) {
  const ir::Node& n = g.node(id);
  if (n.outputs.size() != 1 || n.output(0) == ir::kNone) return std::nullopt;
  if (n.domain.empty() && g.value(n.output(0)).type.dtype == ir::DType::Bool) return predicateExpr(g, id, slots);
  if (g.value(n.output(0)).type.dtype != ir::DType::Float32) return std::nullopt;
  slots = n.inputs;
  if (n.domain == ops::kRammerDomain && n.opType == "FusedElementwise")
    return FusedExpr::parse(n.attrs.getString("expr", ""));
  if (!n.domain.empty()) return std::nullopt;
  if (n.opType == "Where") return whereExpr(g, id, slots);
  if (n.opType == "Cast") return castExpr(g, n, slots);
  for (ir::ValueId v : n.inputs)
    if (v == ir::kNone || g.value(v).type.dtype != ir::DType::Float32) {
      if (n.opType != "Clip") return std::nullopt;  // Clip's bounds may be omitted
    }
  const std::string& op = n.opType;
  // Before opset 7, binary ops broadcast by `axis` and PRelu per channel: the
  // shapes can agree with numpy while the element mapping does not. The
  // legacy-broadcast pass rewrites the nodes it can; what it left keeps
  // the reference's own mapping.
  if (g.opsetVersion < 7 && legacyBroadcastRemains(g, n)) return std::nullopt;
  if (auto it = unaryFunctions().find(op); it != unaryFunctions().end() && n.inputs.size() == 1)
    return FusedExpr::call(it->second, {FusedExpr::input(0)});
  if (auto it = binaryFunctions().find(op); it != binaryFunctions().end() && n.inputs.size() == 2)
    return FusedExpr::call(it->second, {FusedExpr::input(0), FusedExpr::input(1)});
  if ((op == "Sum" || op == "Max" || op == "Min" || op == "Mean") && !n.inputs.empty()) {
    const std::string fn = op == "Sum" || op == "Mean" ? "add" : op == "Max" ? "max" : "min";
    FusedExpr acc = FusedExpr::input(0);
    for (int k = 1; k < static_cast<int>(n.inputs.size()); ++k) acc = FusedExpr::call(fn, {acc, FusedExpr::input(k)});
    if (op == "Mean") acc = FusedExpr::call("div", {acc, FusedExpr::literal(static_cast<float>(n.inputs.size()))});
    return acc;
  }
  const FusedExpr x = FusedExpr::input(0);
  if (op == "LeakyRelu") return FusedExpr::call("leaky_relu", {x, FusedExpr::literal(n.attrs.getFloat("alpha", 0.01f))});
  if (op == "Elu") return FusedExpr::call("elu", {x, FusedExpr::literal(n.attrs.getFloat("alpha", 1.0f))});
  if (op == "Celu" && n.attrs.getFloat("alpha", 1.0f) != 0.0f)  // alpha 0: the reference's error
    return FusedExpr::call("celu", {x, FusedExpr::literal(n.attrs.getFloat("alpha", 1.0f))});
  if (op == "Mod" && n.attrs.getInt("fmod", 0) == 1 && n.inputs.size() == 2)  // float Mod is C's fmod
    return FusedExpr::call("fmod", {FusedExpr::input(0), FusedExpr::input(1)});
  if (op == "ThresholdedRelu")
    return FusedExpr::call("thresholded_relu", {x, FusedExpr::literal(n.attrs.getFloat("alpha", 1.0f))});
  if (op == "Shrink")
    return FusedExpr::call("shrink", {x, FusedExpr::literal(n.attrs.getFloat("lambd", 0.5f)),
                                      FusedExpr::literal(n.attrs.getFloat("bias", 0.0f))});
  if (op == "Selu")
    return FusedExpr::call("selu", {x, FusedExpr::literal(n.attrs.getFloat("alpha", 1.67326319217681884765625f)),
                                    FusedExpr::literal(n.attrs.getFloat("gamma", 1.05070102214813232421875f))});
  if (op == "HardSigmoid")
    return FusedExpr::call("hard_sigmoid", {x, FusedExpr::literal(n.attrs.getFloat("alpha", 0.2f)),
                                            FusedExpr::literal(n.attrs.getFloat("beta", 0.5f))});
  if (op == "Clip") {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (g.opsetVersion < 11) {
      lo = n.attrs.getFloat("min", lo);
      hi = n.attrs.getFloat("max", hi);
    } else {
      for (size_t k = 1; k < 3 && k < n.inputs.size(); ++k) {
        if (n.inputs[k] == ir::kNone) continue;
        const ir::Tensor* c = constantOf(g, n.inputs[k]);
        if (!c || c->numel() != 1 || c->dtype() != ir::DType::Float32) return std::nullopt;
        (k == 1 ? lo : hi) = c->data<float>()[0];
      }
    }
    slots.resize(1);
    return FusedExpr::call("clip", {x, FusedExpr::literal(lo), FusedExpr::literal(hi)});
  }
  if (op == "BatchNormalization" && n.inputs.size() == 5) {
    const ir::Value& xv = g.value(n.input(0));
    if (!xv.type.rankKnown || xv.type.shape.size() < 2 || xv.type.shape[1] < 0) return std::nullopt;
    const int64_t c = xv.type.shape[1];
    const ir::Tensor* p[4];
    for (int k = 0; k < 4; ++k) {
      p[k] = constantOf(g, n.input(static_cast<size_t>(k + 1)));
      if (!p[k] || p[k]->dtype() != ir::DType::Float32 || p[k]->numel() != c) return std::nullopt;
    }
    // y = x * s + t with s, t shaped [C, 1, ...] to broadcast over channel 1.
    ir::Shape cshape(xv.type.shape.size() - 1, 1);
    cshape[0] = c;
    ir::Tensor s(ir::DType::Float32, cshape), t(ir::DType::Float32, cshape);
    const float eps = n.attrs.getFloat("epsilon", 1e-5f);
    for (int64_t i = 0; i < c; ++i) {
      s.data<float>()[i] = p[0]->data<float>()[i] / std::sqrt(p[3]->data<float>()[i] + eps);
      t.data<float>()[i] = p[1]->data<float>()[i] - p[2]->data<float>()[i] * s.data<float>()[i];
    }
    const std::string base = n.name;
    ir::ValueId sv = g.addValue(g.uniqueValueName(base + ".scale"), s.type());
    g.value(sv).constant = std::move(s);
    ir::ValueId tv = g.addValue(g.uniqueValueName(base + ".shift"), t.type());
    g.value(tv).constant = std::move(t);
    slots = {g.node(id).input(0), sv, tv};
    return FusedExpr::call("add", {FusedExpr::call("mul", {x, FusedExpr::input(1)}), FusedExpr::input(2)});
  }
  return std::nullopt;
}

// FusedElementwise broadcasts like numpy; ops with legacy semantics (opset 6
// `broadcast`/`axis`, per-channel PRelu) are fused only when numpy
// broadcasting of their inputs gives exactly their output shape.
bool numpyShapesHold(const ir::Graph& g, const std::vector<ir::ValueId>& slots, ir::ValueId out) {
  std::vector<ir::Shape> shapes;
  for (ir::ValueId v : slots) {
    if (v == ir::kNone) continue;
    const ir::TensorType& t = g.value(v).type;
    if (!t.rankKnown) return false;
    shapes.push_back(t.shape);
  }
  const ir::TensorType& o = g.value(out).type;
  if (!o.rankKnown) return false;
  try {
    return ops::broadcastShapes(shapes) == o.shape;
  } catch (const ops::OpError&) {
    return false;
  }
}

// Nodes one FusedElementwise may absorb. Inlining copies the producer's
// expression and member list into its consumer, so without a cap a chain of
// n element-wise nodes costs n^2 time and memory (a 4,000-node chain took
// 2.5 s and 800 MB) and ends as an expression n deep, which every later
// stage walks recursively. Real models fuse a handful of nodes at a time.
constexpr size_t kMaxFusedNodes = 64;

struct Group {
  FusedExpr expr;
  std::vector<ir::ValueId> inputs;  // x<k> reads inputs[k]
  std::vector<ir::NodeId> members;  // original nodes, producers first
  bool absorbed = false;            // merged into a consumer's group
};

}  // namespace

std::vector<std::string> fusedElementwiseOpTypes() {
  std::vector<std::string> out;
  for (const auto& [op, fn] : unaryFunctions()) out.push_back(op);
  for (const auto& [op, fn] : binaryFunctions()) out.push_back(op);
  for (const char* op : kOtherFusedOps) out.emplace_back(op);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

PassResult ElementwiseFusion::run(ir::Graph& g, PassContext& ctx) {
  auto order = g.topologicalOrder();
  if (!order) return false;
  std::map<ir::NodeId, Group> groups;
  for (ir::NodeId id : *order) {
    std::vector<ir::ValueId> slots;
    std::optional<FusedExpr> e = exprOfNode(g, id, slots);
    if (!e || !numpyShapesHold(g, slots, g.node(id).output(0))) continue;
    Group grp;
    std::vector<FusedExpr> operands;
    for (size_t slot = 0; slot < slots.size(); ++slot) {
      const ir::ValueId v = slots[slot];
      const ir::Value& val = g.value(v);
      // Scalar constants become literals.
      if (val.constant && val.constant->numel() == 1 && val.constant->dtype() == ir::DType::Float32 &&
          val.type.shape.empty()) {
        operands.push_back(FusedExpr::literal(val.constant->data<float>()[0]));
        continue;
      }
      // A fusable producer read only here is inlined, while the group stays small.
      auto prod = groups.find(val.producer);
      if (prod != groups.end() && val.consumers.size() == 1 && !val.isGraphOutput &&
          grp.members.size() + prod->second.members.size() < kMaxFusedNodes) {
        Group& p = prod->second;
        std::vector<FusedExpr> remap;
        for (ir::ValueId pin : p.inputs) {
          auto at = std::find(grp.inputs.begin(), grp.inputs.end(), pin);
          if (at == grp.inputs.end()) {
            grp.inputs.push_back(pin);
            at = grp.inputs.end() - 1;
          }
          remap.push_back(FusedExpr::input(static_cast<int>(at - grp.inputs.begin())));
        }
        operands.push_back(p.expr.substitute(remap));
        grp.members.insert(grp.members.end(), p.members.begin(), p.members.end());
        p.absorbed = true;
        // A bool the node read as a word arrives as the producer's 0/1 value.
        if (val.type.dtype != ir::DType::Float32) e = e->readingValueOf(static_cast<int>(slot));

        continue;
      }
      auto at = std::find(grp.inputs.begin(), grp.inputs.end(), v);
      if (at == grp.inputs.end()) {
        grp.inputs.push_back(v);
        at = grp.inputs.end() - 1;
      }
      operands.push_back(FusedExpr::input(static_cast<int>(at - grp.inputs.begin())));
    }
    grp.expr = e->substitute(operands);
    grp.members.push_back(id);
    groups.emplace(id, std::move(grp));
  }

  bool changed = false;
  for (auto& [rootId, grp] : groups) {
    if (grp.absorbed) continue;
    const ir::Node& root = g.node(rootId);
    // A lone FusedElementwise with nothing merged in stays as it is.
    if (grp.members.size() == 1 && root.domain == ops::kRammerDomain) continue;
    ir::Node fused;
    fused.opType = "FusedElementwise";
    fused.domain = ops::kRammerDomain;
    fused.name = grp.members.size() == 1 ? root.name : root.name + "+fused";
    fused.inputs = grp.inputs;
    // A bool result is written as words: 1 where the 0/1 value is not 0.
    const ir::DType outType = g.value(root.output(0)).type.dtype;
    const FusedExpr expr = outType == ir::DType::Bool ? FusedExpr::call("bool_to_word", {grp.expr}) : grp.expr;
    fused.attrs.set("expr", expr.toString());
    if (outType != ir::DType::Float32) fused.attrs.set("to", static_cast<int64_t>(outType));
    std::vector<std::string> names;
    for (ir::NodeId m : grp.members) names.push_back(g.node(m).opType + ":" + g.node(m).name);
    fused.attrs.set("fused_nodes", names);
    const ir::ValueId out = root.output(0);
    for (ir::NodeId m : grp.members) g.removeNode(m);
    fused.outputs = {out};
    g.addNode(std::move(fused));
    if (grp.members.size() > 1)
      ctx.note("fused " + std::to_string(grp.members.size()) + " nodes into '" + g.value(out).name +
               "': " + expr.toString());
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes

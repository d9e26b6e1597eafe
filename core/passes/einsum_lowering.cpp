#include "core/passes/einsum_lowering.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/passes/node_writer.h"

namespace rammer::passes {

namespace {

struct Equation {
  std::vector<std::string> operands;
  std::string output;
};

// "ab,bc->ac" (or the implicit "ab,bc": the letters that appear once, in
// order); nullopt for an ellipsis, a letter twice in one operand, or
// anything but lowercase and uppercase letters.
std::optional<Equation> parse(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  if (text.find('.') != std::string::npos) return std::nullopt;
  Equation e;
  const auto arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  size_t start = 0;
  while (true) {
    const auto comma = lhs.find(',', start);
    e.operands.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::map<char, int> count;
  for (const std::string& op : e.operands) {
    for (char c : op) {
      if (!std::isalpha(static_cast<unsigned char>(c)) || std::count(op.begin(), op.end(), c) != 1) return std::nullopt;
      ++count[c];
    }
  }
  if (arrow != std::string::npos) {
    e.output = text.substr(arrow + 2);
    for (char c : e.output)
      if (!count.count(c) || std::count(e.output.begin(), e.output.end(), c) != 1) return std::nullopt;
  } else {
    for (const auto& [c, n] : count)
      if (n == 1) e.output += c;
  }
  return e;
}

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// `v` (letters `from`, dims `dims`) transposed to the letters `to`; no node
// when already so, unless it must write `out`.
ir::ValueId transpose(NodeWriter& w, ir::ValueId v, const std::string& from, const std::string& to,
                      const ir::Shape& dims, const std::string& suffix, ir::ValueId out = ir::kNone) {
  if (from == to && out == ir::kNone) return v;
  std::vector<int64_t> perm;
  ir::Shape shape;
  for (char c : to) {
    perm.push_back(static_cast<int64_t>(from.find(c)));
    shape.push_back(dims[from.find(c)]);
  }
  ir::Attributes a;
  a.set("perm", perm);
  return w.node(suffix, "Transpose", {v}, {ir::DType::Float32, shape, true}, std::move(a), out);
}

int64_t product(const std::string& letters, const std::map<char, int64_t>& size) {
  int64_t p = 1;
  for (char c : letters) p *= size.at(c);
  return p;
}

// One operand: sum the letters the output drops, then order the rest.
bool lowerUnary(ir::Graph& g, const ir::Node& n, const Equation& e, const ir::Shape& dims) {
  const std::string& a = e.operands[0];
  std::string kept;
  std::vector<int64_t> axes;
  for (size_t i = 0; i < a.size(); ++i) {
    if (has(e.output, a[i])) kept += a[i];
    else axes.push_back(static_cast<int64_t>(i));
  }
  NodeWriter w(g, n.name);
  ir::ValueId v = n.input(0);
  ir::Shape keptDims;
  for (char c : kept) keptDims.push_back(dims[a.find(c)]);
  if (!axes.empty()) {
    ir::Attributes r;
    r.set("keepdims", int64_t{0});
    std::vector<ir::ValueId> in = {v};
    if (g.opsetVersion >= 13) in.push_back(w.ints(".axes", axes));
    else r.set("axes", axes);
    const bool last = kept == e.output;
    v = w.node(".sum", "ReduceSum", std::move(in), {ir::DType::Float32, keptDims, true}, std::move(r),
               last ? n.output(0) : ir::kNone);
    if (last) return true;
  }
  transpose(w, v, kept, e.output, keptDims, ".order", n.output(0));
  return true;
}

bool lowerBinary(ir::Graph& g, const ir::Node& n, const Equation& e, const ir::Shape& da, const ir::Shape& db) {
  const std::string &a = e.operands[0], &bl = e.operands[1], &o = e.output;
  std::map<char, int64_t> size;
  for (size_t i = 0; i < a.size(); ++i) size[a[i]] = da[i];
  for (size_t i = 0; i < bl.size(); ++i) {
    if (size.count(bl[i]) && size[bl[i]] != db[i]) return false;  // a broadcast: left to the reference
    size[bl[i]] = db[i];
  }
  std::string batch, contracted, freeA, freeB;
  for (char c : a) {
    if (has(bl, c)) (has(o, c) ? batch : contracted) += c;
    else if (has(o, c)) freeA += c;
    else return false;  // summed on A alone
  }
  for (char c : bl)
    if (!has(a, c)) {
      if (!has(o, c)) return false;
      freeB += c;
    }
  const int64_t Bt = product(batch, size), M = product(freeA, size), K = product(contracted, size),
                N = product(freeB, size);
  NodeWriter w(g, n.name);
  const bool batched = !batch.empty();
  auto matrix = [&](ir::ValueId v, const std::string& from, const ir::Shape& dims, const std::string& order,
                    int64_t rows, int64_t cols, const std::string& name) {
    v = transpose(w, v, from, order, dims, name + ".order");
    return w.reshape(name + ".matrix", v, batched ? ir::Shape{Bt, rows, cols} : ir::Shape{rows, cols});
  };
  const ir::ValueId ma = matrix(n.input(0), a, da, batch + freeA + contracted, M, K, ".a");
  const ir::ValueId mb = matrix(n.input(1), bl, db, batch + contracted + freeB, K, N, ".b");
  const ir::ValueId c = w.node(".matmul", "MatMul", {ma, mb},
                               {ir::DType::Float32, batched ? ir::Shape{Bt, M, N} : ir::Shape{M, N}, true});
  const std::string produced = batch + freeA + freeB;
  ir::Shape producedDims;
  for (char l : produced) producedDims.push_back(size[l]);
  if (produced == o) {
    w.reshape(".out", c, producedDims, n.output(0));
  } else {
    transpose(w, w.reshape(".unflat", c, producedDims), produced, o, producedDims, ".out", n.output(0));
  }
  return true;
}

}  // namespace

PassResult EinsumLowering::run(ir::Graph& g, PassContext& ctx) {
  bool changed = false;
  const size_t slots = g.numNodeSlots();
  for (size_t i = 0; i < slots; ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& probe = g.node(id);
    if (probe.removed || !probe.domain.empty() || probe.opType != "Einsum" || probe.output(0) == ir::kNone) continue;
    const auto e = parse(probe.attrs.getString("equation", ""));
    if (!e || e->operands.size() != probe.inputs.size() || e->operands.size() > 2) continue;
    std::vector<ir::Shape> dims;
    bool known = true;
    for (size_t k = 0; k < probe.inputs.size(); ++k) {
      const ir::TensorType& t = g.value(probe.input(k)).type;
      known = known && t.fullyKnown() && t.dtype == ir::DType::Float32 && t.shape.size() == e->operands[k].size();
      if (known) dims.push_back(t.shape);
    }
    if (!known || e->output.empty()) continue;
    const ir::Node n = g.node(id);  // a copy: the nodes added below move the others
    g.removeNode(id);
    const bool done = dims.size() == 1 ? lowerUnary(g, n, *e, dims[0]) : lowerBinary(g, n, *e, dims[0], dims[1]);
    if (!done) {  // put it back as it was
      g.addNode(n);
      continue;
    }
    ctx.note("Einsum '" + n.name + "' (" + n.attrs.getString("equation", "") + ") as " +
             (dims.size() == 1 ? "a transpose or sum" : "a MatMul"));
    changed = true;
  }
  return changed;
}

}  // namespace rammer::passes

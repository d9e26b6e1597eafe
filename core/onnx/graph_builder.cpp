#include "core/onnx/graph_builder.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/onnx/proto_attributes.h"
#include "core/onnx/proto_tensor.h"
#include "core/onnx/proto_types.h"

namespace rammer::onnx_import {

namespace {

std::string nodeNameOf(const onnx::NodeProto& n, int index) {
  if (!n.name().empty()) return n.name();
  return (n.op_type().empty() ? std::string("node") : n.op_type()) + "_" + std::to_string(index);
}

// "ai.onnx" is another spelling of the default domain.
std::string normalDomain(const std::string& d) { return d == "ai.onnx" ? std::string() : d; }

// The type a Constant node's output has, from whichever value attribute it
// carries, so that the type is known even before (or without) inference.
std::optional<ir::TensorType> constantType(const ir::Attributes& a) {
  using ir::DType;
  if (const ir::AttrValue* v = a.find("value"))
    if (const auto* t = std::get_if<ir::Tensor>(v)) return t->type();
  auto list = [&](const char* name, DType dt) -> std::optional<ir::TensorType> {
    const ir::AttrValue* v = a.find(name);
    if (!v) return std::nullopt;
    const auto n = std::visit(
        [](const auto& x) -> int64_t {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<float>> ||
                        std::is_same_v<T, std::vector<std::string>>)
            return static_cast<int64_t>(x.size());
          return -1;
        },
        *v);
    if (n < 0) return std::nullopt;
    return ir::TensorType{dt, {n}, true};
  };
  if (a.has("value_float")) return ir::TensorType{DType::Float32, {}, true};
  if (a.has("value_int")) return ir::TensorType{DType::Int64, {}, true};
  if (a.has("value_string")) return ir::TensorType{DType::String, {}, true};
  if (auto t = list("value_floats", DType::Float32)) return t;
  if (auto t = list("value_ints", DType::Int64)) return t;
  if (auto t = list("value_strings", DType::String)) return t;
  return std::nullopt;
}

// Whether the known dims of `declared` agree with `actual`.
bool shapeAgrees(const ir::TensorType& declared, const ir::Shape& actual) {
  if (!declared.rankKnown) return true;
  bool ok = declared.shape.size() == actual.size();
  for (size_t i = 0; ok && i < actual.size(); ++i)
    ok = declared.shape[i] < 0 || declared.shape[i] == actual[i];
  return ok;
}

class Builder {
 public:
  Builder(onnx::GraphProto& proto, const std::vector<std::optional<std::string_view>>& initializerRaw,
          const std::filesystem::path& baseDir, const ops::OpRegistry& registry, ErrorList& errors)
      : proto_(proto), initializerRaw_(initializerRaw), baseDir_(baseDir), registry_(registry), errors_(errors) {}

  ir::Graph run() {
    graph_.name = proto_.name();
    checkOperators();
    collectDeclaredTypes();
    addInitializers();
    addInputs();
    addNodeOutputs();
    addNodes();
    addOutputs();
    if (errors_.empty()) {
      auto order = graph_.topologicalOrder();
      if (!order) errors_.add(order.errors());
    }
    return std::move(graph_);
  }

 private:
  // One error listing every unsupported operator with its count, before
  // anything else: it is what a user most needs to know.
  void checkOperators() {
    std::map<std::string, int> missing;
    for (int i = 0; i < proto_.node_size(); ++i) {
      const auto& n = proto_.node(i);
      if (n.op_type().empty()) {
        errors_.add("the node has no op_type", nodeNameOf(n, i));
        continue;
      }
      const std::string domain = normalDomain(n.domain());
      if (!registry_.find(domain, n.op_type())) ++missing[domain.empty() ? n.op_type() : domain + "." + n.op_type()];
    }
    if (missing.empty()) return;
    std::string list;
    for (const auto& [type, count] : missing) {
      if (!list.empty()) list += ", ";
      list += type + " (" + std::to_string(count) + ")";
    }
    errors_.add("unsupported operators: " + list);
  }

  void collectDeclaredTypes() {
    auto record = [&](const onnx::ValueInfoProto& info) {
      if (info.name().empty()) return;
      auto r = declaredType(info);
      if (!r.value) errors_.add(r.error);
      else declared_[info.name()] = std::move(*r.value);
    };
    for (const auto& vi : proto_.value_info()) record(vi);
    for (const auto& out : proto_.output()) record(out);
  }

  void addInitializers() {
    if (proto_.sparse_initializer_size() > 0)
      errors_.add("sparse initializers are not supported ('" + proto_.sparse_initializer(0).values().name() + "')");
    for (int i = 0; i < proto_.initializer_size(); ++i) {
      onnx::TensorProto& tp = *proto_.mutable_initializer(i);
      const std::string name = tp.name();
      if (name.empty()) {
        errors_.add("an initializer has no name");
        continue;
      }
      if (graph_.findValue(name)) {
        errors_.add("initializer '" + name + "' is defined twice");
        continue;
      }
      const auto raw = static_cast<size_t>(i) < initializerRaw_.size() ? initializerRaw_[static_cast<size_t>(i)]
                                                                      : std::nullopt;
      auto t = tensorFromSplitProto(tp, raw, baseDir_);
      if (!t) {
        errors_.add(t.errors().front().message);
        continue;
      }
      const ir::ValueId id = graph_.addValue(name, t->type());
      graph_.value(id).constant = std::move(t).value();
      initializer_.insert(name);
    }
  }

  // Inputs that have an initializer are constants (weights exported as
  // overridable inputs), not runtime inputs; their declaration must match.
  void addInputs() {
    for (const auto& info : proto_.input()) {
      const std::string& name = info.name();
      if (name.empty()) {
        errors_.add("a graph input has no name");
        continue;
      }
      auto r = declaredType(info);
      if (!r.value) {
        errors_.add(r.error);
        continue;
      }
      const ir::TensorType& decl = r.value->type;
      if (initializer_.count(name)) {
        const ir::Value& v = graph_.value(*graph_.findValue(name));
        if (decl.dtype != ir::DType::Undefined && decl.dtype != v.type.dtype)
          errors_.add("graph input '" + name + "' is declared " + std::string(ir::dtypeName(decl.dtype)) +
                      " but its initializer is " + std::string(ir::dtypeName(v.type.dtype)));
        else if (!shapeAgrees(decl, v.type.shape))
          errors_.add("graph input '" + name + "' is declared with shape " + ir::shapeToString(decl.shape) +
                      " but its initializer has shape " + ir::shapeToString(v.type.shape));
        continue;
      }
      if (graph_.findValue(name)) {
        errors_.add("graph input '" + name + "' is listed twice");
        continue;
      }
      if (decl.dtype == ir::DType::Undefined) {
        errors_.add("graph input '" + name + "' declares no tensor type");
        continue;
      }
      const ir::ValueId id = graph_.addValue(name, decl);
      graph_.value(id).dimParams = r.value->dimParams;
      graph_.addInput(id);
    }
  }

  // Creates every node output first, so nodes may appear in any order in the
  // file (cycles are found afterwards).
  void addNodeOutputs() {
    const int n = proto_.node_size();
    outputOk_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const auto& node = proto_.node(i);
      const std::string name = nodeNameOf(node, i);
      auto& ok = outputOk_[static_cast<size_t>(i)];
      for (const std::string& out : node.output()) {
        ok.push_back(false);
        if (out.empty()) continue;
        if (auto it = producer_.find(out); it != producer_.end()) {
          errors_.add("value '" + out + "' is produced twice (by nodes '" + it->second + "' and '" + name + "')", name);
          continue;
        }
        if (graph_.findValue(out)) {
          const char* what = initializer_.count(out) ? "an initializer" : "a graph input";
          errors_.add("value '" + out + "' is produced by node '" + name + "' but is also " + what, name);
          continue;
        }
        producer_.emplace(out, name);
        ir::TensorType type;
        type.rankKnown = false;
        std::vector<std::string> params;
        if (auto it = declared_.find(out); it != declared_.end()) {
          type = it->second.type;
          params = it->second.dimParams;
        }
        const ir::ValueId id = graph_.addValue(out, type);
        graph_.value(id).dimParams = std::move(params);
        ok.back() = true;
      }
    }
  }

  void addNodes() {
    for (int i = 0; i < proto_.node_size(); ++i) {
      onnx::NodeProto& np = *proto_.mutable_node(i);
      ir::Node node;
      node.name = nodeNameOf(np, i);
      node.opType = np.op_type();
      node.domain = normalDomain(np.domain());
      for (const std::string& msg : convertAttributes(np, node.name, baseDir_, node.attrs)) errors_.add(msg, node.name);
      for (const std::string& in : np.input()) {
        if (in.empty()) {
          node.inputs.push_back(ir::kNone);
          continue;
        }
        auto id = graph_.findValue(in);
        if (!id) {
          errors_.add(node.opType + " input '" + in + "' is not produced by any node, initializer or graph input",
                      node.name);
          node.inputs.push_back(ir::kNone);
          continue;
        }
        node.inputs.push_back(*id);
      }
      const auto& ok = outputOk_[static_cast<size_t>(i)];
      for (int k = 0; k < np.output_size(); ++k)
        node.outputs.push_back(ok[static_cast<size_t>(k)] ? *graph_.findValue(np.output(k)) : ir::kNone);
      if (node.domain.empty() && node.opType == "Constant" && node.outputs.size() == 1 && node.outputs[0] != ir::kNone) {
        ir::Value& v = graph_.value(node.outputs[0]);
        if (v.type.dtype == ir::DType::Undefined)
          if (auto t = constantType(node.attrs)) v.type = *t;
      }
      graph_.addNode(std::move(node));  // cannot throw: double producers were left out above
    }
  }

  void addOutputs() {
    if (proto_.output_size() == 0) errors_.add("the graph has no outputs");
    for (const auto& info : proto_.output()) {
      const std::string& name = info.name();
      auto id = name.empty() ? std::nullopt : graph_.findValue(name);
      if (!id) {
        errors_.add("graph output '" + name + "' is not produced by any node, initializer or graph input");
        continue;
      }
      const ir::Value& v = graph_.value(*id);
      // Node outputs took the declaration already; inferred types are checked
      // against it later. Inputs and constants are checked here.
      if (v.producer == ir::kNone) {
        const ir::TensorType& decl = declared_[name].type;
        if (decl.dtype != ir::DType::Undefined && decl.dtype != v.type.dtype)
          errors_.add("graph output '" + name + "' is declared " + std::string(ir::dtypeName(decl.dtype)) +
                      " but the value is " + std::string(ir::dtypeName(v.type.dtype)));
      }
      graph_.addOutput(*id);
    }
  }

  onnx::GraphProto& proto_;
  const std::vector<std::optional<std::string_view>>& initializerRaw_;
  const std::filesystem::path& baseDir_;
  const ops::OpRegistry& registry_;
  ErrorList& errors_;
  ir::Graph graph_;
  std::unordered_map<std::string, DeclaredType> declared_;
  std::unordered_set<std::string> initializer_;
  std::unordered_map<std::string, std::string> producer_;  // value -> node name
  std::vector<std::vector<bool>> outputOk_;  // per node, per output: linked as producer
};

}  // namespace

ir::Graph buildGraph(onnx::GraphProto& proto, const std::vector<std::optional<std::string_view>>& initializerRaw,
                     const std::filesystem::path& baseDir, const ops::OpRegistry& registry, ErrorList& errors) {
  return Builder(proto, initializerRaw, baseDir, registry, errors).run();
}

}  // namespace rammer::onnx_import

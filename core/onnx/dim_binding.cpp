#include "core/onnx/dim_binding.h"

#include <map>

#include "core/onnx/dim_limits.h"

namespace rammer::onnx_import {

namespace {

struct Binding {
  int64_t size;
  std::string source;  // the input that fixed it, for conflict messages
};

class Binder {
 public:
  Binder(ir::Graph& graph, ErrorList& errors) : graph_(graph), errors_(errors) {}

  void bindSymbol(const std::string& symbol, int64_t size, const std::string& source) {
    auto [it, fresh] = symbols_.emplace(symbol, Binding{size, source});
    if (!fresh && it->second.size != size)
      errors_.add("symbolic dim '" + symbol + "' is bound to " + std::to_string(it->second.size) + " by input '" +
                  it->second.source + "' and to " + std::to_string(size) + " by input '" + source + "'");
  }

  void applyGivenShape(ir::Value& v, const ir::Shape& given) {
    if (auto why = checkDims(given); why || !ir::isFullyKnown(given)) {
      errors_.add("the shape given for input '" + v.name + "', " + ir::shapeToString(given) +
                  ", is not a concrete shape" + (why ? ": " + *why : std::string()));
      return;
    }
    const ir::TensorType& decl = v.type;
    bool agrees = !decl.rankKnown || decl.shape.size() == given.size();
    for (size_t i = 0; agrees && decl.rankKnown && i < given.size(); ++i)
      agrees = decl.shape[i] < 0 || decl.shape[i] == given[i];
    if (!agrees) {
      errors_.add("input '" + v.name + "' is declared " + ir::shapeToString(decl.shape) + " but given shape " +
                  ir::shapeToString(given));
      return;
    }
    for (size_t i = 0; i < v.dimParams.size() && i < given.size(); ++i)
      if (!v.dimParams[i].empty()) bindSymbol(v.dimParams[i], given[i], v.name);
    v.type.shape = given;
    v.type.rankKnown = true;
  }

  void applyBatch(ir::Value& v, int64_t batch) {
    if (!v.type.rankKnown || v.type.shape.empty() || v.type.shape[0] >= 0) return;
    const std::string symbol = v.dimParams.empty() ? std::string() : v.dimParams[0];
    if (symbol.empty()) {
      v.type.shape[0] = batch;
      return;
    }
    // A symbol already fixed by inputShapes wins over the batch option.
    auto it = symbols_.find(symbol);
    if (it == symbols_.end()) bindSymbol(symbol, batch, v.name);
    v.type.shape[0] = symbols_.at(symbol).size;
  }

  // Every dim declared with a bound symbol's name takes its size.
  void propagate() {
    if (symbols_.empty()) return;
    for (size_t id = 0; id < graph_.numValues(); ++id) {
      ir::Value& v = graph_.value(static_cast<ir::ValueId>(id));
      for (size_t i = 0; i < v.dimParams.size() && i < v.type.shape.size(); ++i) {
        if (v.dimParams[i].empty() || v.type.shape[i] >= 0) continue;
        if (auto it = symbols_.find(v.dimParams[i]); it != symbols_.end()) v.type.shape[i] = it->second.size;
      }
    }
  }

 private:
  ir::Graph& graph_;
  ErrorList& errors_;
  std::map<std::string, Binding> symbols_;
};

std::string inputList(const ir::Graph& g) {
  std::string out;
  for (ir::ValueId v : g.inputs()) out += (out.empty() ? "" : ", ") + g.value(v).name;
  return out.empty() ? "none" : out;
}

}  // namespace

void bindDims(ir::Graph& graph, const ImportOptions& options, ErrorList& errors) {
  Binder binder(graph, errors);
  for (const auto& [name, shape] : options.inputShapes) {
    auto id = graph.findValue(name);
    if (!id || !graph.value(*id).isGraphInput) {
      const bool constant = id && graph.value(*id).constant;
      errors.add("a shape is given for '" + name + "', which is " +
                 (constant ? std::string("an initializer, not a runtime input")
                           : "not a graph input (inputs: " + inputList(graph) + ")"));
      continue;
    }
    binder.applyGivenShape(graph.value(*id), shape);
  }
  if (options.batch) {
    const int64_t batch = *options.batch;
    if (batch < 1 || batch > kMaxDim) {
      errors.add("batch size " + std::to_string(batch) + " is out of range (1..2^31)");
    } else {
      for (ir::ValueId id : graph.inputs())
        if (!options.inputShapes.count(graph.value(id).name)) binder.applyBatch(graph.value(id), batch);
    }
  }
  binder.propagate();
}

}  // namespace rammer::onnx_import

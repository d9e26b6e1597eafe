#include "core/exec/reference_executor.h"

#include <optional>

#include "core/exec/memory_budget.h"
#include "core/ops/type_inference.h"
#include "core/ops/op_compute.h"

namespace rammer::exec {

std::vector<ir::Diagnostic> checkInputs(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs) {
  std::vector<ir::Diagnostic> errs;
  if (inputs.size() != graph.inputs().size()) {
    errs.push_back(ir::makeError("the model has " + std::to_string(graph.inputs().size()) + " inputs, " +
                                 std::to_string(inputs.size()) + " were given"));
    return errs;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = graph.value(graph.inputs()[i]);
    const ir::Tensor& t = inputs[i];
    std::string where = "input " + std::to_string(i) + " ('" + v.name + "')";
    if (v.type.dtype != t.dtype()) {
      errs.push_back(ir::makeError(where + " must be " + std::string(ir::dtypeName(v.type.dtype)) + ", got " +
                                   std::string(ir::dtypeName(t.dtype()))));
      continue;
    }
    if (!v.type.rankKnown) continue;
    bool match = v.type.shape.size() == t.shape().size();
    for (size_t d = 0; match && d < t.shape().size(); ++d)
      match = v.type.shape[d] < 0 || v.type.shape[d] == t.shape()[d];
    if (!match)
      errs.push_back(ir::makeError(where + " must have shape " + ir::shapeToString(v.type.shape) + ", got " +
                                   ir::shapeToString(t.shape())));
  }
  return errs;
}

std::vector<int> useCounts(const ir::Graph& graph, const std::vector<ir::NodeId>& order) {
  std::vector<int> uses(graph.numValues(), 0);
  for (ir::NodeId id : order)
    for (ir::ValueId v : graph.node(id).inputs)
      if (v != ir::kNone) ++uses[static_cast<size_t>(v)];
  for (ir::ValueId v : graph.outputs()) uses[static_cast<size_t>(v)] += 1 << 20;  // never freed
  return uses;
}

ir::Result<std::vector<ir::Tensor>> runReference(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                                                 const ReferenceOptions& options) {
  if (auto errs = checkInputs(graph, inputs); !errs.empty()) return errs;
  if (auto over = checkMemoryBudget(estimateReferenceRun(graph), options.maxMemoryBytes, "the reference executor"))
    return *over;
  auto order = graph.topologicalOrder();
  if (!order) return order.errors();
  const ops::OpRegistry& registry = options.registry ? *options.registry : ops::OpRegistry::builtin();

  const size_t n = graph.numValues();
  std::vector<std::optional<ir::Tensor>> live(n);
  std::vector<const ir::Tensor*> known(n, nullptr);
  std::vector<int> usesLeft = useCounts(graph, *order);
  for (size_t i = 0; i < inputs.size(); ++i) known[static_cast<size_t>(graph.inputs()[i])] = &inputs[i];

  size_t done = 0;
  for (ir::NodeId id : *order) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed))
      return ir::makeError("cancelled");
    const ir::Node& node = graph.node(id);
    const ops::OpDef* def = registry.find(node.domain, node.opType);
    if (!def || !def->compute) return ir::makeError("unsupported operator " + node.opType, node.name);
    try {
      // Types come from the actual tensors so a graph with unbound dims still runs.
      ops::OpContext typed = ops::makeContext(graph, node, known);
      std::vector<ir::TensorType> types;
      std::vector<const ir::Tensor*> values;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const ir::Tensor* t = typed.value(i);
        if (node.inputs[i] != ir::kNone && !t)
          return ir::makeError("input '" + graph.value(node.inputs[i]).name + "' has no value", node.name);
        types.push_back(t ? t->type() : ir::TensorType{});
        values.push_back(t);
      }
      ops::OpContext ctx(node, graph.opsetVersion, std::move(types), std::move(values));
      std::vector<ir::Tensor> outs = ops::computeOp(*def, ctx);
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        ir::ValueId out = node.outputs[i];
        if (out == ir::kNone) continue;
        if (i >= outs.size() || outs[i].empty())
          return ir::makeError(node.opType + " produced no value for output " + std::to_string(i), node.name);
        live[static_cast<size_t>(out)] = std::move(outs[i]);
        known[static_cast<size_t>(out)] = &*live[static_cast<size_t>(out)];
      }
    } catch (const std::exception& e) {
      return ir::makeError(node.opType + ": " + e.what(), node.name);
    }
    // Free intermediates after their last use to bound memory.
    for (ir::ValueId v : node.inputs) {
      if (v == ir::kNone) continue;
      if (--usesLeft[static_cast<size_t>(v)] == 0 && live[static_cast<size_t>(v)]) {
        live[static_cast<size_t>(v)].reset();
        known[static_cast<size_t>(v)] = nullptr;
      }
    }
    if (options.progress) options.progress(++done, order->size());
  }

  std::vector<ir::Tensor> results;
  for (ir::ValueId v : graph.outputs()) {
    const ir::Value& val = graph.value(v);
    const ir::Tensor* t = known[static_cast<size_t>(v)];
    if (!t && val.constant) t = &*val.constant;
    if (!t) return ir::makeError("graph output '" + val.name + "' was not computed");
    results.push_back(*t);
  }
  return results;
}

}  // namespace rammer::exec

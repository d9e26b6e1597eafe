#include "core/ops/type_inference.h"
#include "core/ops/op_compute.h"

#include <optional>

namespace rammer::ops {

OpContext makeContext(const ir::Graph& graph, const ir::Node& node,
                      const std::vector<const ir::Tensor*>& known) {
  std::vector<ir::TensorType> types;
  std::vector<const ir::Tensor*> values;
  for (ir::ValueId v : node.inputs) {
    if (v == ir::kNone) {
      types.emplace_back();
      values.push_back(nullptr);
      continue;
    }
    const ir::Value& val = graph.value(v);
    types.push_back(val.type);
    const ir::Tensor* t = val.constant ? &*val.constant : nullptr;
    if (!t && static_cast<size_t>(v) < known.size()) t = known[static_cast<size_t>(v)];
    values.push_back(t);
  }
  return OpContext(node, graph.opsetVersion, std::move(types), std::move(values));
}

namespace {

// Declared (from the model) and inferred types must agree where both are known.
std::optional<std::string> mergeType(ir::TensorType& declared, const ir::TensorType& inferred) {
  if (declared.dtype != ir::DType::Undefined && inferred.dtype != ir::DType::Undefined &&
      declared.dtype != inferred.dtype)
    return "declared type " + std::string(ir::dtypeName(declared.dtype)) + " but the op produces " +
           std::string(ir::dtypeName(inferred.dtype));
  ir::TensorType out = inferred;
  if (out.dtype == ir::DType::Undefined) out.dtype = declared.dtype;
  const bool declaredRank = declared.rankKnown && !(declared.shape.empty() && declared.dtype == ir::DType::Undefined);
  if (!out.rankKnown && declaredRank) {
    out.shape = declared.shape;
    out.rankKnown = true;
  } else if (out.rankKnown && declaredRank && declared.rankKnown && !declared.shape.empty() &&
             declared.shape.size() == out.shape.size()) {
    for (size_t i = 0; i < out.shape.size(); ++i) {
      if (out.shape[i] < 0) out.shape[i] = declared.shape[i];
      else if (declared.shape[i] >= 0 && declared.shape[i] != out.shape[i])
        return "declared shape " + ir::shapeToString(declared.shape) + " but the op produces " +
               ir::shapeToString(inferred.shape);
    }
  }
  declared = std::move(out);
  return std::nullopt;
}

// Folds only small work: inputs and the inferred outputs (so a tiny
// ConstantOfShape or Expand cannot blow up into a huge constant).
bool canFold(const OpDef& def, const OpContext& ctx, const std::vector<ir::TensorType>& outputs, int64_t limit) {
  if (!def.compute) return false;
  for (size_t i = 0; i < ctx.numOutputs() && i < outputs.size(); ++i) {
    if (!ctx.hasOutput(i)) continue;
    const int64_t n = outputs[i].rankKnown ? ir::numElements(outputs[i].shape) : -1;
    if (n < 0 || n > limit) return false;
  }
  int64_t total = 0;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.has(i)) continue;
    if (def.computeFromTypesOnly) {
      if (!ctx.type(i).fullyKnown()) return false;
      continue;
    }
    const ir::Tensor* t = ctx.value(i);
    if (!t) return false;
    total += t->numel();
  }
  return total <= limit;
}

}  // namespace

std::vector<ir::Diagnostic> inferTypes(ir::Graph& graph, const InferenceOptions& options,
                                       const OpRegistry& registry) {
  auto order = graph.topologicalOrder();
  if (!order) return order.errors();

  std::vector<std::optional<ir::Tensor>> folded(graph.numValues());
  std::vector<const ir::Tensor*> known(graph.numValues(), nullptr);
  std::vector<ir::Diagnostic> errors;

  for (ir::NodeId id : *order) {
    const ir::Node& node = graph.node(id);
    const OpDef* def = registry.find(node.domain, node.opType);
    if (!def) {
      errors.push_back(ir::makeError("unsupported operator " + node.opType, node.name));
      continue;
    }
    try {
      OpContext ctx = makeContext(graph, node, known);
      for (size_t i = 0; i < ctx.numInputs(); ++i)
        if (node.inputs[i] != ir::kNone && ctx.type(i).dtype == ir::DType::Undefined)
          ctx.fail("input '" + graph.value(node.inputs[i]).name + "' has no known type");
      std::vector<ir::TensorType> outTypes = def->infer(ctx);
      if (outTypes.size() < node.outputs.size())
        ctx.fail("has " + std::to_string(node.outputs.size()) + " outputs, the op defines at most " +
                 std::to_string(outTypes.size()));

      std::vector<ir::Tensor> values;
      if (canFold(*def, ctx, outTypes, options.maxFoldElements)) {
        // Folding is only a help for inference: an op that cannot compute
        // these inputs (e.g. float16 data) keeps its inferred types and
        // reports the problem if it is ever run.
        try {
          values = ops::computeOp(*def, ctx);
        } catch (const std::exception&) {
          values.clear();
        }
        for (size_t i = 0; i < values.size() && i < outTypes.size(); ++i)
          if (!values[i].empty()) outTypes[i] = values[i].type();
      }
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        ir::ValueId out = node.outputs[i];
        if (out == ir::kNone) continue;
        ir::Value& v = graph.value(out);
        if (auto err = mergeType(v.type, outTypes[i])) ctx.fail("output '" + v.name + "': " + *err);
        if (i < values.size() && !values[i].empty()) {
          folded[static_cast<size_t>(out)] = std::move(values[i]);
          known[static_cast<size_t>(out)] = &*folded[static_cast<size_t>(out)];
        }
      }
    } catch (const std::exception& e) {
      errors.push_back(ir::makeError(node.opType + ": " + e.what(), node.name));
    }
  }
  return errors;
}

}  // namespace rammer::ops

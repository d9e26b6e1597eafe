#include "core/kernels/concat_in_place.h"

#include <algorithm>

#include "core/ir/words.h"
#include "core/kernels/kernel_library.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

namespace {

// Whether `v` is an operator's own output whose buffer may move into the
// Concat's: produced by a node that is not a view, a Concat (its own
// inputs may be placed in its buffer: nesting is left out) or a Split
// (its outputs may one day be views of its input).
bool movable(const ir::Graph& g, ir::ValueId v, ir::NodeId concat) {
  if (v == ir::kNone) return false;
  const ir::Value& val = g.value(v);
  if (val.constant || val.isGraphInput || val.isGraphOutput || val.producer == ir::kNone) return false;
  const ir::Node& p = g.node(val.producer);
  if (isViewOp(p) || p.opType == "Concat" || p.opType == "Split") return false;
  // Used once by this Concat and by no other: a value has one storage.
  int here = 0;
  for (ir::NodeId c : val.consumers) {
    if (c == concat)
      ++here;
    else if (g.node(c).opType == "Concat")
      return false;
  }
  return here == 1;
}

}  // namespace

std::optional<std::vector<int64_t>> concatInPlaceOffsets(const ir::Graph& graph, ir::NodeId node) {
  const ir::Node& n = graph.node(node);
  if (n.opType != "Concat" || (!n.domain.empty() && n.domain != "ai.onnx") || n.outputs.size() != 1 ||
      n.output(0) == ir::kNone || n.inputs.empty())
    return std::nullopt;
  const ir::TensorType& out = graph.value(n.output(0)).type;
  if (!out.fullyKnown() || !ir::heldAsWords(out.dtype) || ir::numElements(out.shape) == 0) return std::nullopt;
  const auto rank = static_cast<int64_t>(out.shape.size());
  int64_t axis = 0;
  try {
    axis = ops::normalizeAxis(n.attrs.getInt("axis", 0), rank);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // Every dim before the axis 1: each input is one contiguous block.
  for (int64_t d = 0; d < axis; ++d)
    if (out.shape[static_cast<size_t>(d)] != 1) return std::nullopt;
  std::vector<int64_t> offsets;
  int64_t at = 0;
  for (ir::ValueId v : n.inputs) {
    if (!movable(graph, v, node)) return std::nullopt;
    const ir::TensorType& t = graph.value(v).type;
    const int64_t numel = t.fullyKnown() ? ir::numElements(t.shape) : 0;
    if (numel == 0 || t.dtype != out.dtype) return std::nullopt;
    offsets.push_back(at);
    at += numel;
  }
  if (at != ir::numElements(out.shape)) return std::nullopt;
  return offsets;
}

RKernel concatInPlaceKernel(ir::NodeId node, const ir::Node& n) {
  RKernel k = idleKernel(node, n, "concat_in_place", "in_place");
  k.inputsInPlace = true;  // the producers wrote it
  return k;
}

}  // namespace rammer::kernels

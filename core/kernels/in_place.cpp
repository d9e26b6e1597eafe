#include "core/kernels/in_place.h"

#include <algorithm>

#include "core/ir/words.h"
#include "core/kernels/kernel_library.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

namespace {

// Whether `v` is an operator's own output whose buffer may move into the
// Concat's: produced by a node that is not a view, a Concat (its own
// inputs may be placed in its buffer: nesting is left out), a Gather or a
// Split (their outputs may be views of their input).
bool movable(const ir::Graph& g, ir::ValueId v, ir::NodeId concat) {
  if (v == ir::kNone) return false;
  const ir::Value& val = g.value(v);
  if (val.constant || val.isGraphInput || val.isGraphOutput || val.producer == ir::kNone) return false;
  const ir::Node& p = g.node(val.producer);
  if (isViewOp(p) || p.opType == "Concat" || p.opType == "Gather" || p.opType == "Split") return false;
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

bool defaultDomain(const ir::Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

// The axis attribute normalized, or nullopt when it is out of range.
std::optional<int64_t> axisOf(const ir::Node& n, int64_t rank) {
  try {
    return ops::normalizeAxis(n.attrs.getInt("axis", 0), rank);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A constant integer tensor's only element.
std::optional<int64_t> onlyIndex(const ir::Graph& g, ir::ValueId v) {
  if (v == ir::kNone || !g.value(v).constant) return std::nullopt;
  const ir::Tensor& t = *g.value(v).constant;
  if (t.numel() != 1) return std::nullopt;
  if (t.dtype() == ir::DType::Int64) return t.values<int64_t>()[0];
  if (t.dtype() == ir::DType::Int32) return t.values<int32_t>()[0];
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<int64_t>> concatInPlaceOffsets(const ir::Graph& graph, ir::NodeId node) {
  const ir::Node& n = graph.node(node);
  if (n.opType != "Concat" || !defaultDomain(n) || n.outputs.size() != 1 ||
      n.output(0) == ir::kNone || n.inputs.empty())
    return std::nullopt;
  const ir::TensorType& out = graph.value(n.output(0)).type;
  if (!out.fullyKnown() || !ir::heldAsWords(out.dtype) || ir::numElements(out.shape) == 0) return std::nullopt;
  const auto axis = axisOf(n, static_cast<int64_t>(out.shape.size()));
  if (!axis) return std::nullopt;
  // Every dim before the axis 1: each input is one contiguous block.
  for (int64_t d = 0; d < *axis; ++d)
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

std::optional<std::vector<int64_t>> partsInPlaceOffsets(const ir::Graph& graph, ir::NodeId node) {
  const ir::Node& n = graph.node(node);
  if ((n.opType != "Gather" && n.opType != "Split") || !defaultDomain(n) || n.inputs.empty() ||
      n.input(0) == ir::kNone || n.outputs.empty())
    return std::nullopt;
  const ir::TensorType& in = graph.value(n.input(0)).type;
  if (!in.fullyKnown() || in.dtype != ir::DType::Float32) return std::nullopt;
  const auto axis = axisOf(n, static_cast<int64_t>(in.shape.size()));
  if (!axis) return std::nullopt;
  // Every dim before the axis 1: each part is one contiguous block.
  for (int64_t d = 0; d < *axis; ++d)
    if (in.shape[static_cast<size_t>(d)] != 1) return std::nullopt;
  std::vector<int64_t> numels;
  for (ir::ValueId v : n.outputs) {
    if (v == ir::kNone) return std::nullopt;
    const ir::Value& val = graph.value(v);
    if (!val.type.fullyKnown() || val.type.dtype != ir::DType::Float32 || val.isGraphOutput) return std::nullopt;
    numels.push_back(ir::numElements(val.type.shape));
    if (numels.back() == 0) return std::nullopt;
  }
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(*axis) + 1; d < in.shape.size(); ++d) inner *= in.shape[d];
  if (n.opType == "Gather") {
    auto index = onlyIndex(graph, n.inputs.size() > 1 ? n.input(1) : ir::kNone);
    const int64_t extent = in.shape[static_cast<size_t>(*axis)];
    if (!index || n.outputs.size() != 1 || numels[0] != inner) return std::nullopt;
    if (*index < 0) *index += extent;
    if (*index < 0 || *index >= extent) return std::nullopt;
    return std::vector<int64_t>{*index * inner};
  }
  std::vector<int64_t> offsets;
  int64_t at = 0;
  for (int64_t numel : numels) {
    offsets.push_back(at);
    at += numel;
  }
  if (at != ir::numElements(in.shape)) return std::nullopt;
  return offsets;
}

RKernel concatInPlaceKernel(ir::NodeId node, const ir::Node& n) {
  RKernel k = idleKernel(node, n, "concat_in_place", "in_place");
  k.inputsInPlace = true;  // the producers wrote it
  return k;
}

RKernel partsInPlaceKernel(ir::NodeId node, const ir::Node& n) {
  RKernel k = idleKernel(node, n, n.opType == "Gather" ? "gather_in_place" : "split_in_place", "in_place");
  k.outputsInPlace = true;  // its consumers read their part of the input
  return k;
}

}  // namespace rammer::kernels

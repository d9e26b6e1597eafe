#include "core/kernels/in_place.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/ir/words.h"
#include "core/kernels/copy_kernels.h"
#include "core/kernels/kernel_library.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

namespace {

// Whether `v` is an operator's own output whose buffer may move into the
// Concat's: produced by a node that is not a view or a copy (a Concat's
// own inputs may be placed in its buffer: nesting is left out; the other
// copies' outputs may be views of their input).
bool movable(const ir::Graph& g, ir::ValueId v, ir::NodeId concat) {
  if (v == ir::kNone) return false;
  const ir::Value& val = g.value(v);
  if (val.constant || val.isGraphInput || val.isGraphOutput || val.producer == ir::kNone) return false;
  const ir::Node& p = g.node(val.producer);
  const auto& copies = copyOpTypes();
  if (isViewOp(p) || std::find(copies.begin(), copies.end(), p.opType) != copies.end()) return false;
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
  const auto& types = copyOpTypes();
  if (!defaultDomain(n) || n.opType == "Concat" || std::find(types.begin(), types.end(), n.opType) == types.end() ||
      n.inputs.empty() || n.input(0) == ir::kNone || n.outputs.empty())
    return std::nullopt;
  const ir::TensorType& in = graph.value(n.input(0)).type;
  if (!in.fullyKnown() || in.dtype != ir::DType::Float32) return std::nullopt;
  for (ir::ValueId v : n.outputs) {
    if (v == ir::kNone) return std::nullopt;
    const ir::Value& val = graph.value(v);
    if (!val.type.fullyKnown() || val.type.dtype != ir::DType::Float32 || val.isGraphOutput ||
        ir::numElements(val.type.shape) == 0)
      return std::nullopt;
  }
  // Where each output element comes from (the copy rKernels' own map): a
  // part runs in place when it is one run of consecutive input elements.
  std::vector<ir::Tensor> maps;
  try {
    maps = copySourceMaps(readNode(graph, node));
  } catch (const std::exception&) {
    return std::nullopt;  // indices known only at run time, an output too large to probe
  }
  std::vector<int64_t> offsets;
  for (const ir::Tensor& m : maps) {
    const auto from = m.values<int64_t>();
    if (from.empty() || from[0] < 0) return std::nullopt;
    for (size_t k = 1; k < from.size(); ++k)
      if (from[k] != from[0] + static_cast<int64_t>(k)) return std::nullopt;
    offsets.push_back(from[0]);
  }
  return offsets;
}

RKernel concatInPlaceKernel(ir::NodeId node, const ir::Node& n, std::vector<int64_t> offsets) {
  RKernel k = idleKernel(node, n, "concat_in_place", "in_place");
  k.inputsInPlace = true;  // the producers wrote it
  k.placeOffsets = std::move(offsets);
  return k;
}

RKernel partsInPlaceKernel(ir::NodeId node, const ir::Node& n, std::vector<int64_t> offsets) {
  std::string name = n.opType;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  RKernel k = idleKernel(node, n, name + "_in_place", "in_place");
  k.outputsInPlace = true;  // its consumers read their part of the input
  k.placeOffsets = std::move(offsets);
  return k;
}

}  // namespace rammer::kernels

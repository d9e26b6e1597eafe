// The dispatcher: maps an optimized graph's node to its rKernel family.
#include "core/kernels/kernel_library.h"

#include <algorithm>
#include <functional>
#include <map>

#include "core/kernels/arg_kernels.h"
#include "core/kernels/attention_kernels.h"
#include "core/kernels/cell_kernels.h"
#include "core/kernels/in_place.h"
#include "core/kernels/conv_kernels.h"
#include "core/kernels/copy_kernels.h"
#include "core/kernels/elementwise_kernels.h"
#include "core/kernels/fused_group_kernels.h"
#include "core/kernels/gemm_kernels.h"
#include "core/kernels/kernel_source.h"
#include "core/kernels/mask_kernels.h"
#include "core/kernels/norm_kernels.h"
#include "core/kernels/pool_kernels.h"
#include "core/kernels/reduce_kernels.h"
#include "core/kernels/scan_kernels.h"
#include "core/kernels/scatter_kernels.h"
#include "core/kernels/softmax_kernels.h"
#include "core/kernels/word_elementwise_kernels.h"
#include "core/ops/op_registry.h"

namespace rammer::kernels {

namespace {

using Family = std::function<std::vector<RKernel>(const ir::Graph&, ir::NodeId)>;

// Families that only need the node's static shapes.
Family viaInfo(std::vector<RKernel> (*f)(const NodeInfo&)) {
  return [f](const ir::Graph& g, ir::NodeId id) { return f(readNode(g, id)); };
}

// Families that also take integer and bool tensors (run-time words).
Family viaWordInfo(std::vector<RKernel> (*f)(const NodeInfo&)) {
  return [f](const ir::Graph& g, ir::NodeId id) { return f(readNode(g, id, true)); };
}

// "com.rammer::LstmCell" for our domain, the bare type for ONNX's.
std::string qualified(const std::string& domain, const std::string& type) {
  return domain.empty() || domain == "ai.onnx" ? type : domain + "::" + type;
}

const std::map<std::string, Family>& families() {
  static const std::map<std::string, Family> table = [] {
    std::map<std::string, Family> t;
    t["MatMul"] = gemmKernels;
    t["Gemm"] = gemmKernels;
    t["Conv"] = convKernels;
    t[qualified(ops::kRammerDomain, "FusedMatMul")] = gemmKernels;
    t[qualified(ops::kRammerDomain, "FusedGemm")] = gemmKernels;
    t[qualified(ops::kRammerDomain, "FusedConv")] = convKernels;
    t[qualified(ops::kRammerDomain, "FusedElementwise")] = viaWordInfo(elementwiseKernels);  // where_word, int_to_float
    t[qualified(ops::kRammerDomain, "FusedGroup")] = viaInfo(fusedGroupKernels);
    t[qualified(ops::kRammerDomain, "Attention")] = viaInfo(attentionKernels);
    for (const std::string& type : cellOpTypes()) t[qualified(ops::kRammerDomain, type)] = viaInfo(cellKernels);
    t["MaxPool"] = viaInfo(windowPoolKernels);
    t["AveragePool"] = viaInfo(windowPoolKernels);
    t["GlobalMaxPool"] = viaInfo(globalPoolKernels);
    t["GlobalAveragePool"] = viaInfo(globalPoolKernels);
    t["Softmax"] = viaInfo(softmaxKernels);
    t["LayerNormalization"] = viaInfo(layerNormKernels);
    t["Trilu"] = viaInfo(triluKernels);
    t["LogSoftmax"] = viaInfo(softmaxKernels);
    for (const std::string& type : reduceOpTypes()) t[type] = viaInfo(reduceKernels);
    for (const std::string& type : copyOpTypes()) t[type] = viaWordInfo(copyKernels);
    for (const std::string& type : wordElementwiseOpTypes()) t[type] = viaWordInfo(wordElementwiseKernels);
    t["ArgMax"] = viaWordInfo(argKernels);
    t["ArgMin"] = viaWordInfo(argKernels);
    for (const std::string& type : scatterOpTypes()) t[type] = viaWordInfo(scatterKernels);
    for (const std::string& type : scanOpTypes()) t[type] = viaInfo(scanKernels);
    return t;
  }();
  return table;
}

// Whether every output has a known shape with no elements (a zero dim):
// nothing to compute, whatever the op (issue #18 item 4).
bool writesNothing(const ir::Graph& g, const ir::Node& n) {
  bool any = false;
  for (ir::ValueId v : n.outputs) {
    if (v == ir::kNone) continue;
    const ir::TensorType& t = g.value(v).type;
    if (!t.rankKnown || ir::numElements(t.shape) != 0) return false;
    any = true;
  }
  return any;
}


}  // namespace

ir::Result<OperatorKernels> kernelsFor(const ir::Graph& graph, ir::NodeId node) {
  const ir::Node& n = graph.node(node);
  const std::string op = qualified(n.domain, n.opType);
  OperatorKernels out;
  out.node = node;
  if (isViewOp(n)) {
    out.isView = true;
    return out;
  }
  if (writesNothing(graph, n)) {
    out.candidates.push_back(idleKernel(node, n, "empty", "empty"));  // its outputs are empty
    return out;
  }
  const auto it = families().find(op);
  if (it == families().end()) {
    // An element-wise op is fused into FusedElementwise only on float32: say
    // which type kept this one out.
    std::string types;
    for (ir::ValueId v : n.inputs)
      if (v != ir::kNone && !graph.value(v).constant && graph.value(v).type.dtype != ir::DType::Float32 &&
          graph.value(v).type.dtype != ir::DType::Undefined) {
        types = std::string(ir::dtypeName(graph.value(v).type.dtype));
        break;
      }
    return ir::makeError("no rKernel implements " + op + (types.empty() ? "" : " on " + types + " tensors") +
                             " (node '" + n.name + "')" +
                             (types.empty() ? "" : "; rKernels compute float32") +
                             "; the reference executor can still run it",
                         n.name);
  }
  try {
    out.candidates = it->second(graph, node);
  } catch (const std::exception& e) {
    return ir::makeError("no rKernel for " + op + " node '" + n.name + "': " + e.what(), n.name);
  }
  if (out.candidates.empty()) return ir::makeError("no rKernel candidate for " + op + " node '" + n.name + "'", n.name);
  if (op == "Concat") {
    if (auto offsets = concatInPlaceOffsets(graph, node))
      out.candidates.insert(out.candidates.begin(), concatInPlaceKernel(node, n, std::move(*offsets)));
  } else if (auto offsets = partsInPlaceOffsets(graph, node)) {
    out.candidates.insert(out.candidates.begin(), partsInPlaceKernel(node, n, std::move(*offsets)));
  }
  return out;
}

RKernel idleKernel(ir::NodeId node, const ir::Node& n, const std::string& name, const std::string& family) {
  RKernel k;
  k.name = name;
  k.family = family;
  k.numRTasks = 1;
  k.block = Dim3{32, 1, 1};
  k.cudaFunction = "rk_n" + std::to_string(node) + "_" + name;
  k.cudaSource = cudaEmptyFunction(k.cudaFunction, n.inputs.size(), n.outputs.size());
  k.written = [](int64_t, std::vector<WrittenRun>&) {};  // nothing to write
  return k;
}

bool isViewOp(const ir::Node& n) {
  static const char* const kViews[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
  if (!n.domain.empty() && n.domain != "ai.onnx") return false;
  if (std::find(std::begin(kViews), std::end(kViews), n.opType) != std::end(kViews)) return true;
  // Inference Dropout is a view unless its mask is wanted.
  return n.opType == "Dropout" && (n.outputs.size() < 2 || n.outputs[1] == ir::kNone);
}

std::vector<std::string> supportedOpTypes() {
  std::vector<std::string> types;
  for (const auto& [type, family] : families()) types.push_back(type);
  for (const char* v : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"}) types.emplace_back(v);
  std::sort(types.begin(), types.end());
  return types;
}

}  // namespace rammer::kernels

#include "core/exec/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "core/exec/reference_executor.h"
#include "core/ops/model_summary.h"
#include "core/ops/op_registry.h"
#include "core/ops/type_inference.h"

namespace rammer::exec {

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t addSat(int64_t a, int64_t b) { return a > kMax - b ? kMax : a + b; }

// Bytes of a value of element size `width`; -1 when its shape is not known.
int64_t bytesOf(const ir::TensorType& t, int64_t width) {
  if (!t.fullyKnown()) return -1;
  const int64_t n = ir::numElements(t.shape);
  if (n == kMax || (n > 0 && n > kMax / width)) return kMax;
  return n * width;
}

int64_t naturalWidth(const ir::TensorType& t) {
  return std::max<int64_t>(1, static_cast<int64_t>(ir::dtypeSize(t.dtype)));
}

// Adds value `v` (if its size is known) to a running estimate.
struct Tally {
  MemoryEstimate estimate;
  std::vector<ir::ValueId> held;  // what the current total is made of

  void add(ir::ValueId v, int64_t bytes) {
    if (bytes < 0) {
      ++estimate.unknownValues;
      return;
    }
    estimate.peakBytes = addSat(estimate.peakBytes, bytes);
    held.push_back(v);
  }
};

std::vector<TensorFootprint> largestOf(const ir::Graph& graph, const std::vector<ir::ValueId>& values,
                                       bool asFloat32) {
  std::vector<TensorFootprint> all;
  for (ir::ValueId v : values) {
    const ir::Value& val = graph.value(v);
    all.push_back({val.name, val.type, bytesOf(val.type, asFloat32 ? 4 : naturalWidth(val.type))});
  }
  const size_t n = std::min(all.size(), MemoryEstimate::kLargestShown);
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const TensorFootprint& a, const TensorFootprint& b) { return a.bytes > b.bytes; });
  all.resize(n);
  return all;
}

// The working memory the reference compute of `node` takes beside its
// inputs and outputs (OpDef::scratch); 0 when its op says none or a shape
// it needs is unknown.
int64_t scratchOf(const ir::Graph& graph, const ir::Node& node) {
  const ops::OpDef* def = ops::OpRegistry::builtin().find(node.domain, node.opType);
  if (!def || !def->scratch) return 0;
  try {
    std::vector<ir::TensorType> outputs;
    for (ir::ValueId v : node.outputs) outputs.push_back(v == ir::kNone ? ir::TensorType{} : graph.value(v).type);
    return std::max<int64_t>(0, def->scratch(ops::makeContext(graph, node, {}), outputs));
  } catch (const std::exception&) {
    return 0;  // the executor reports what is wrong with the node
  }
}

int64_t cgroupLimit() {
  std::ifstream f("/sys/fs/cgroup/memory.max");  // cgroup v2; "max" when unlimited
  int64_t limit = 0;
  if (f >> limit && limit > 0) return limit;
  return kMax;
}

}  // namespace

MemoryEstimate estimateInputs(const ir::Graph& graph) {
  Tally t;
  for (ir::ValueId v : graph.inputs()) t.add(v, bytesOf(graph.value(v).type, naturalWidth(graph.value(v).type)));
  t.estimate.largest = largestOf(graph, t.held, false);
  return t.estimate;
}

MemoryEstimate estimateReferenceRun(const ir::Graph& graph, bool scratch) {
  MemoryEstimate inputs = estimateInputs(graph);
  auto order = graph.topologicalOrder();
  if (!order) return inputs;  // the executor reports the cycle itself

  // One walk with the executor's own frees: an intermediate lives from its
  // producer until its last consumer has run; graph outputs until the end.
  const size_t n = graph.numValues();
  std::vector<int> usesLeft = useCounts(graph, *order);
  auto sizeOf = [&](ir::ValueId v) { return bytesOf(graph.value(v).type, naturalWidth(graph.value(v).type)); };

  int64_t live = inputs.peakBytes, peak = live, peakScratch = 0, unknown = inputs.unknownValues;
  size_t peakStep = 0, step = 0;
  for (ir::NodeId id : *order) {
    ++step;
    for (ir::ValueId v : graph.node(id).outputs) {
      if (v == ir::kNone) continue;
      const int64_t b = sizeOf(v);
      if (b < 0) ++unknown;
      else live = addSat(live, b);
    }
    // The node's own working memory lives while it runs.
    const int64_t working = scratch ? scratchOf(graph, graph.node(id)) : 0;
    if (addSat(live, working) > peak) peak = addSat(live, working), peakScratch = working, peakStep = step;
    for (ir::ValueId v : graph.node(id).inputs) {
      if (v == ir::kNone || graph.value(v).producer == ir::kNone) continue;  // inputs and constants stay
      if (--usesLeft[static_cast<size_t>(v)] == 0 && live != kMax) live -= std::max<int64_t>(0, sizeOf(v));
    }
  }
  MemoryEstimate e;
  e.peakBytes = peak;
  e.scratchBytes = peakScratch;
  e.unknownValues = unknown;
  if (peakStep == 0) {
    e.largest = inputs.largest;
    return e;
  }
  // What was held at the peak: replay the walk up to that node.
  std::vector<char> held(n, 0);
  for (ir::ValueId v : graph.inputs()) held[static_cast<size_t>(v)] = 1;
  usesLeft = useCounts(graph, *order);
  for (size_t s = 0; s < peakStep; ++s) {
    const ir::Node& node = graph.node((*order)[s]);
    for (ir::ValueId v : node.outputs)
      if (v != ir::kNone) held[static_cast<size_t>(v)] = 1;
    if (s + 1 == peakStep) break;
    for (ir::ValueId v : node.inputs)
      if (v != ir::kNone && graph.value(v).producer != ir::kNone && --usesLeft[static_cast<size_t>(v)] == 0)
        held[static_cast<size_t>(v)] = 0;
  }
  std::vector<ir::ValueId> heldValues;
  for (size_t v = 0; v < n; ++v)
    if (held[v]) heldValues.push_back(static_cast<ir::ValueId>(v));
  e.largest = largestOf(graph, heldValues, false);
  return e;
}

MemoryEstimate estimatePlanRun(const schedule::Plan& plan, const ir::Graph& given, bool withConstants) {
  const ir::Graph& graph = schedule::graphOf(plan, given);
  Tally t{estimateInputs(graph), {}};
  for (ir::ValueId v : graph.inputs()) t.held.push_back(v);
  std::vector<char> seen(graph.numValues(), 0);
  for (const schedule::PlannedOp& op : plan.ops) {
    if (op.node < 0 || static_cast<size_t>(op.node) >= graph.numNodeSlots() || graph.node(op.node).removed) continue;
    const ir::Node& node = graph.node(op.node);
    if (!op.isView)
      for (ir::ValueId v : node.outputs)
        if (v != ir::kNone && !seen[static_cast<size_t>(v)]++) t.add(v, bytesOf(graph.value(v).type, 4));
    if (!withConstants) continue;
    for (ir::ValueId v : node.inputs)
      if (v != ir::kNone && graph.value(v).constant && !seen[static_cast<size_t>(v)]++)
        t.add(v, bytesOf(graph.value(v).type, 4));
  }
  t.estimate.largest = largestOf(graph, t.held, true);
  return t.estimate;
}

int64_t defaultMemoryBudget() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  int64_t total = pages > 0 && pageSize > 0 ? static_cast<int64_t>(pages) * pageSize : int64_t{8} << 30;
  return std::min(total, cgroupLimit()) / 2;
}

std::optional<ir::Diagnostic> checkMemoryBudget(const MemoryEstimate& e, int64_t budgetBytes,
                                                const std::string& what) {
  const bool byDefault = budgetBytes <= 0;
  const int64_t budget = byDefault ? defaultMemoryBudget() : budgetBytes;
  if (e.peakBytes <= budget) return std::nullopt;
  auto size = [](int64_t b) { return b == kMax ? std::string("more than 9 EB") : ops::formatBytes(b); };
  const std::string forWhat = e.scratchBytes > 0 ? " for the model's tensors and " + size(e.scratchBytes) +
                                                     " of working memory"
                                                 : " for the model's tensors";
  std::string msg = what + " would need " + (e.lowerBound ? "at least " : "about ") + size(e.peakBytes) + forWhat +
                    ", over the memory budget of " + ops::formatBytes(budget) +
                    (byDefault ? " (half this machine's memory; --max-memory sets it)" : "");
  if (!e.largest.empty()) {
    msg += "; largest tensors:";
    for (size_t i = 0; i < e.largest.size(); ++i)
      msg += (i ? ", '" : " '") + e.largest[i].name + "' " + ir::typeToString(e.largest[i].type) + " " +
             size(e.largest[i].bytes);
  }
  return ir::makeError(msg);
}

}  // namespace rammer::exec

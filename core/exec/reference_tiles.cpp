#include "core/exec/reference_tiles.h"

#include <stdexcept>
#include <string>

#include "core/ir/words.h"
#include "core/ops/op_compute.h"
#include "core/ops/op_registry.h"

namespace rammer::exec {

ReferenceTiles::ReferenceTiles(const schedule::Plan& plan, const ir::Graph& graph,
                               const std::vector<ir::Tensor>& inputs)
    : plan_(plan), graph_(graph), inputs_(inputs), done_(std::make_unique<std::atomic<uint64_t>[]>(plan.ops.size())) {
  states_.resize(plan.ops.size());
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (!plan.ops[i].isView && !plan.ops[i].kernel.cpu && plan.ops[i].kernel.written) {
      states_[i] = std::make_unique<OpState>();
      states_[i]->left = plan.ops[i].kernel.numRTasks;
      const ir::Node& node = graph.node(plan.ops[i].node);
      for (ir::ValueId v : node.outputs)
        states_[i]->numel.push_back(v == ir::kNone ? 0 : ir::numElements(graph.value(v).type.shape));
    }
}

uint64_t ReferenceTiles::inputsVersion(int32_t op) const {
  uint64_t v = 0;
  for (int32_t p : plan_.ops[static_cast<size_t>(op)].producers)
    v += done_[static_cast<size_t>(p)].load(std::memory_order_acquire);
  return v;
}

void ReferenceTiles::compute(int32_t op, const kernels::TaskBuffers& buffers, OpState& state) const {
  const ir::Node& node = graph_.node(plan_.ops[static_cast<size_t>(op)].node);
  const ops::OpDef* def = ops::OpRegistry::builtin().find(node.domain, node.opType);
  if (!def || !def->compute) throw std::runtime_error("the reference has no " + node.opType + " to emulate it with");
  // The inputs as they are now: constants and graph inputs in place, the
  // rest from the words the producers wrote.
  std::vector<ir::Tensor> owned(node.inputs.size());
  std::vector<ir::TensorType> types(node.inputs.size());
  std::vector<const ir::Tensor*> values(node.inputs.size(), nullptr);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ir::ValueId v = node.inputs[i];
    if (v == ir::kNone) continue;
    const ir::Value& val = graph_.value(v);
    const ir::Tensor* t = val.constant ? &*val.constant : nullptr;
    for (size_t g = 0; !t && g < graph_.inputs().size() && g < inputs_.size(); ++g)
      if (graph_.inputs()[g] == v) t = &inputs_[g];
    if (!t) {
      if (i >= buffers.inputs.size() || !buffers.inputs[i] || !val.type.fullyKnown())
        throw std::runtime_error("input '" + val.name + "' has no storage of known shape to read");
      owned[i] = ir::fromWords(val.type.dtype, val.type.shape,
                               {buffers.inputs[i], static_cast<size_t>(ir::numElements(val.type.shape))});
      t = &owned[i];
    }
    types[i] = t->type();
    values[i] = t;
  }
  const ops::OpContext ctx(node, graph_.opsetVersion, std::move(types), std::move(values));
  std::vector<ir::Tensor> outs = ops::computeOp(*def, ctx);
  state.words.assign(node.outputs.size(), {});
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    if (node.outputs[o] == ir::kNone) continue;
    if (o >= outs.size()) throw std::runtime_error("the reference " + node.opType + " gave no output " + std::to_string(o));
    auto words = ir::toWords(outs[o], outs[o].numel(), "output " + std::to_string(o));
    if (!words) throw std::runtime_error(words.errorText());
    state.words[o] = std::move(words).value();
  }
  state.spans.assign(state.words.begin(), state.words.end());
}

void ReferenceTiles::run(int32_t op, int64_t rtask, const kernels::TaskBuffers& buffers) {
  OpState* state = states_.at(static_cast<size_t>(op)).get();
  if (!state) throw std::logic_error("rKernel has neither a CPU tile nor the elements it writes");
  const schedule::PlannedOp& planned = plan_.ops[static_cast<size_t>(op)];
  thread_local std::vector<kernels::WrittenRun> runs;
  runs.clear();
  planned.kernel.written(rtask, runs);
  std::lock_guard lock(state->mutex);
  const bool last = --state->left == 0;
  if (!runs.empty()) copy(op, buffers, runs, *state);
  if (last) {  // every rTask has run: the result is no longer needed
    state->words = {};
    state->spans = {};
    state->computed = false;
  }
}

void ReferenceTiles::copy(int32_t op, const kernels::TaskBuffers& buffers, std::span<const kernels::WrittenRun> runs,
                          OpState& state) const {
  const uint64_t version = inputsVersion(op);
  if (!state.computed || version != state.inputsVersion) {
    compute(op, buffers, state);
    state.computed = true;
    state.inputsVersion = version;
  }
  const size_t outputs = std::min(buffers.outputs.size(), state.numel.size());  // not the workspace
  kernels::copyWrittenRuns(runs, state.spans, std::span(buffers.outputs.data(), outputs), state.numel);
}

}  // namespace rammer::exec

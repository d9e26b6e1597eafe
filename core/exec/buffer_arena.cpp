#include "core/exec/buffer_arena.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "core/exec/reference_executor.h"
#include "core/ir/words.h"

namespace rammer::exec {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string opLabel(const schedule::PlannedOp& op) {
  return "operator " + quoted(op.name) + " (" + op.opType + ")";
}

}  // namespace

ir::Result<BufferArena> BufferArena::build(const schedule::Plan& plan, const ir::Graph& given,
                                           const std::vector<ir::Tensor>& inputs) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  if (auto errs = checkInputs(graph, inputs); !errs.empty()) return errs;
  BufferArena arena;
  arena.graph_ = &graph;
  std::vector<Storage> storage(graph.numValues());
  for (size_t i = 0; i < inputs.size(); ++i)
    storage[static_cast<size_t>(graph.inputs()[i])] = Storage{&inputs[i], -1, inputs[i].numel()};

  // A value's storage once known: graph inputs and constants on first use,
  // operator outputs after they were allocated or aliased below.
  auto resolve = [&](ir::ValueId v) -> Storage {
    Storage& s = storage[static_cast<size_t>(v)];
    if (!s.known() && graph.value(v).constant) {
      const ir::Tensor& c = *graph.value(v).constant;
      s = Storage{&c, -1, c.numel()};
    }
    return s;
  };
  auto dtypeOf = [](const Storage& s) { return s.tensor ? s.tensor->dtype() : ir::DType::Float32; };
  // Why a value has no storage, for the error messages.
  auto whyMissing = [&](ir::ValueId v) {
    const ir::Value& val = graph.value(v);
    if (val.producer == ir::kNone) return quoted(val.name) + " is neither a graph input nor a constant";
    return quoted(val.name) + " is produced by node " + quoted(graph.node(val.producer).name) +
           ", which the plan does not run";
  };

  // Inputs of a Concat run in place: the Concat's output and the offset there.
  std::map<ir::ValueId, std::pair<ir::ValueId, int64_t>> placed;
  for (const schedule::PlannedOp& op : plan.ops) {
    if (op.isView || !op.kernel.inputsInPlace) continue;
    const ir::Node& n = graph.node(op.node);
    if (op.kernel.placeOffsets.size() != n.inputs.size())
      return ir::makeError(opLabel(op) + " runs " + op.kernel.name + " without an offset for each input", op.name);
    for (size_t k = 0; k < n.inputs.size(); ++k) placed[n.inputs[k]] = {n.output(0), op.kernel.placeOffsets[k]};
  }

  // Operator outputs: one float32 buffer each, or a place in a Concat's.
  for (const schedule::PlannedOp& op : plan.ops) {
    if (op.node < 0 || static_cast<size_t>(op.node) >= graph.numNodeSlots() || graph.node(op.node).removed)
      return ir::makeError("the plan's " + opLabel(op) + " names no live node of the graph (node id " +
                           std::to_string(op.node) + ")");
    if (op.isView || op.kernel.outputsInPlace) continue;  // views of their input, below
    for (ir::ValueId v : graph.node(op.node).outputs) {
      if (v == ir::kNone) continue;
      const ir::Value& val = graph.value(v);
      if (!ir::heldAsWords(val.type.dtype))
        return ir::makeError(opLabel(op) + " writes " + quoted(val.name) + ", a " +
                                 std::string(ir::dtypeName(val.type.dtype)) +
                                 " tensor, which run-time words do not hold (core/ir/words.h)",
                             op.name);
      if (!val.type.fullyKnown())
        return ir::makeError(opLabel(op) + " writes " + quoted(val.name) + " of unknown shape " +
                                 ir::typeToString(val.type),
                             op.name);
      if (storage[static_cast<size_t>(v)].known())
        return ir::makeError(quoted(val.name) + " is written by more than one operator of the plan", op.name);
      if (placed.count(v)) continue;  // below, once the Concat's buffer exists
      const int64_t n = ir::numElements(val.type.shape);
      Buffer b;
      b.numel = n;
      // Poisoned with NaN, not zeroed: an element no rTask writes (or a
      // split-K output nobody zeroed) shows in the results.
      b.data = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(std::max<int64_t>(n, 1)));
      std::fill_n(b.data.get(), std::max<int64_t>(n, 1), std::numeric_limits<float>::quiet_NaN());
      storage[static_cast<size_t>(v)] = Storage{nullptr, static_cast<int32_t>(arena.buffers_.size()), n};
      arena.buffers_.push_back(std::move(b));
      arena.allocated_ += n;
    }
  }

  for (const auto& [v, at] : placed) {
    const Storage& whole = storage[static_cast<size_t>(at.first)];
    const int64_t n = ir::numElements(graph.value(v).type.shape);
    if (whole.buffer < 0 || at.second + n > whole.numel)
      return ir::makeError(quoted(graph.value(v).name) + " does not fit its place in " +
                           quoted(graph.value(at.first).name));
    storage[static_cast<size_t>(v)] = Storage{nullptr, whole.buffer, n, at.second};
  }

  // Views: the output is the input's storage. Chains of views resolve in
  // plan order; a few rounds cover a plan whose ops are out of order.
  std::vector<const schedule::PlannedOp*> views;
  for (const schedule::PlannedOp& op : plan.ops)
    if (op.isView || op.kernel.outputsInPlace) views.push_back(&op);
  for (size_t round = 0; round <= views.size() && !views.empty(); ++round) {
    std::vector<const schedule::PlannedOp*> pending;
    for (const schedule::PlannedOp* op : views) {
      const ir::Node& n = graph.node(op->node);
      if (n.inputs.empty() || n.outputs.empty() || n.inputs[0] == ir::kNone)
        return ir::makeError(opLabel(*op) + " is a view without a data input or output", op->name);
      const Storage in = resolve(n.inputs[0]);
      if (!in.known()) {
        pending.push_back(op);
        continue;
      }
      if (op->kernel.outputsInPlace) {  // each output a part of the input
        const std::vector<int64_t>& offsets = op->kernel.placeOffsets;
        if (offsets.size() != n.outputs.size())
          return ir::makeError(opLabel(*op) + " runs " + op->kernel.name + " without an offset for each output", op->name);
        for (size_t k = 0; k < n.outputs.size(); ++k) {
          const int64_t numel = ir::numElements(graph.value(n.outputs[k]).type.shape);
          storage[static_cast<size_t>(n.outputs[k])] = Storage{in.tensor, in.buffer, numel, in.offset + offsets[k]};
        }
        continue;
      }
      const ir::ValueId out = n.outputs[0];
      const ir::Value& val = graph.value(out);
      if (val.type.fullyKnown() && ir::numElements(val.type.shape) != in.numel)
        return ir::makeError(opLabel(*op) + " is a view but changes the element count (" +
                                 std::to_string(in.numel) + " -> " + ir::shapeToString(val.type.shape) + ")",
                             op->name);
      storage[static_cast<size_t>(out)] = in;
    }
    if (pending.size() == views.size()) {
      const schedule::PlannedOp& op = *pending.front();
      return ir::makeError(opLabel(op) + " views " + whyMissing(graph.node(op.node).inputs[0]), op.name);
    }
    views = std::move(pending);
  }

  // Kernel arguments. Integer inputs and constants are read through word
  // copies (not counted in allocated_: they are the inputs, converted).
  std::map<ir::ValueId, int32_t> wordCopies;
  arena.opBuffers_.resize(plan.ops.size());
  arena.opOutputs_.resize(plan.ops.size());
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const schedule::PlannedOp& op = plan.ops[i];
    if (op.isView) continue;
    const ir::Node& n = graph.node(op.node);
    kernels::TaskBuffers& tb = arena.opBuffers_[i];
    for (ir::ValueId v : n.inputs) {
      if (v == ir::kNone) {
        tb.inputs.push_back(nullptr);
        continue;
      }
      const Storage s = resolve(v);
      if (!s.known()) return ir::makeError(opLabel(op) + " reads " + whyMissing(v), op.name);
      if (s.tensor && dtypeOf(s) != ir::DType::Float32) {
        // Non-float constants (shapes, indices) are baked into the rKernel
        // unless it reads them as words.
        if (graph.value(v).constant && !op.kernel.readsConstantAsWords(tb.inputs.size())) {
          tb.inputs.push_back(nullptr);
          continue;
        }
        // An integer or bool graph input or constant: its words, made once.
        auto [it, fresh] = wordCopies.try_emplace(v, -1);
        if (fresh) {
          auto words = ir::toWords(*s.tensor, s.numel, quoted(graph.value(v).name) + " (read by " + opLabel(op) + ")");
          if (!words) return words.errors();
          Buffer b;
          b.numel = s.numel;
          b.data = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(std::max<int64_t>(s.numel, 1)));
          std::copy(words->begin(), words->end(), b.data.get());
          it->second = static_cast<int32_t>(arena.buffers_.size());
          arena.buffers_.push_back(std::move(b));
        }
        tb.inputs.push_back(arena.buffers_[static_cast<size_t>(it->second)].data.get());
        continue;
      }
      tb.inputs.push_back(arena.at(s));
    }
    for (ir::ValueId v : n.outputs) {
      if (v == ir::kNone) {
        tb.outputs.push_back(nullptr);
        continue;
      }
      const Storage& s = storage[static_cast<size_t>(v)];
      tb.outputs.push_back(arena.at(s));
      if (s.buffer >= 0) arena.opOutputs_[i].push_back(Region{s.buffer, s.offset, s.numel});
    }
    if (op.kernel.workspaceWords > 0) {
      // The rKernel's own memory after its outputs, zeroed with them.
      Buffer w;
      w.numel = op.kernel.workspaceWords;
      w.data = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(w.numel));
      std::fill_n(w.data.get(), w.numel, std::numeric_limits<float>::quiet_NaN());
      tb.outputs.push_back(w.data.get());
      arena.opOutputs_[i].push_back(Region{static_cast<int32_t>(arena.buffers_.size()), 0, w.numel});
      arena.buffers_.push_back(std::move(w));
      arena.allocated_ += op.kernel.workspaceWords;
    }
  }

  for (ir::ValueId v : graph.outputs()) {
    const Storage s = resolve(v);
    const ir::Value& val = graph.value(v);
    if (!s.known()) return ir::makeError("graph output " + whyMissing(v), val.name);
    if (!s.tensor && !val.type.fullyKnown())
      return ir::makeError("graph output " + quoted(val.name) + " has unknown shape " + ir::typeToString(val.type),
                           val.name);
    arena.outputs_.push_back(GraphOutput{v, s});
  }
  return arena;
}

void BufferArena::zeroOutputs(int32_t op) {
  for (const Region& r : opOutputs_.at(static_cast<size_t>(op)))
    std::fill_n(buffers_[static_cast<size_t>(r.buffer)].data.get() + r.offset, r.numel, 0.0f);
}

ir::Result<std::vector<ir::Tensor>> BufferArena::outputs() const {
  std::vector<ir::Tensor> out;
  for (const GraphOutput& o : outputs_) {
    const ir::Value& val = graph_->value(o.value);
    if (o.storage.tensor && o.storage.offset == 0 && o.storage.numel == o.storage.tensor->numel()) {
      // A graph input or constant, possibly seen through views.
      ir::Tensor t = *o.storage.tensor;
      if (val.type.fullyKnown() && val.type.shape != t.shape()) t.reshape(val.type.shape);
      out.push_back(std::move(t));
      continue;
    }
    const Storage& s = o.storage;
    if (ir::numElements(val.type.shape) != s.numel)
      return ir::makeError("graph output " + val.name + " has " + std::to_string(ir::numElements(val.type.shape)) +
                               " elements but its storage has " + std::to_string(s.numel),
                           val.name);
    out.push_back(ir::fromWords(val.type.dtype, val.type.shape, {at(s), static_cast<size_t>(s.numel)}));
  }
  return out;
}

}  // namespace rammer::exec

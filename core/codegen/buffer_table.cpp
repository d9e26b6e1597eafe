#include "core/codegen/buffer_table.h"

#include <map>
#include <tuple>
#include <utility>

#include "core/ir/words.h"

namespace rammer::codegen {

namespace {

class Builder {
 public:
  explicit Builder(const ir::Graph& graph) : graph_(graph) {}

  // The buffer of a float value, created on first use; -1 with an error
  // recorded when the value cannot have one.
  int32_t bufferOf(ir::ValueId v, BufferInfo::Kind kindIfNew) {
    if (auto it = index_.find(v); it != index_.end()) return it->second;
    const ir::Value& val = graph_.value(v);
    if (!val.type.fullyKnown()) {
      errors_.push_back(ir::makeError("value '" + val.name + "' has no fully known shape; generated code needs every dim",
                                      val.name));
      return -1;
    }
    BufferInfo b;
    b.name = val.name;
    b.value = v;
    b.kind = val.isGraphInput ? BufferInfo::Kind::Input
             : val.constant   ? BufferInfo::Kind::Weight
                              : kindIfNew;
    b.numel = ir::numElements(val.type.shape);
    const auto id = static_cast<int32_t>(table_.buffers.size());
    b.storage = id;
    table_.buffers.push_back(std::move(b));
    index_[v] = id;
    return id;
  }

  // Run-time tensors are held in words (ir/words.h); other types only as
  // constants an rKernel bakes in.
  bool isWords(ir::ValueId v) const { return ir::heldAsWords(graph_.value(v).type.dtype); }
  bool isFloat(ir::ValueId v) const { return graph_.value(v).type.dtype == ir::DType::Float32; }

  void addOp(const schedule::PlannedOp& op) {
    const ir::Node& n = graph_.node(op.node);
    std::vector<int32_t> args;
    if (op.isView) {
      // The output is the input reinterpreted: same storage.
      const ir::ValueId in = n.input(0), out = n.output(0);
      if (in != ir::kNone && out != ir::kNone && isWords(in) && isWords(out)) {
        const int32_t src = bufferOf(in, BufferInfo::Kind::Intermediate);
        const int32_t dst = bufferOf(out, BufferInfo::Kind::Intermediate);
        if (src >= 0 && dst >= 0) table_.buffers[static_cast<size_t>(dst)].storage = src;  // a root in finish()
      }
      table_.opArgs.push_back({});
      return;
    }
    for (size_t slot = 0; slot < n.inputs.size(); ++slot) {
      const ir::ValueId v = n.inputs[slot];
      if (v == ir::kNone) {
        args.push_back(-1);
      } else if (isFloat(v) || (isWords(v) && (!graph_.value(v).constant || op.kernel.readsConstantAsWords(slot)))) {
        args.push_back(bufferOf(v, BufferInfo::Kind::Intermediate));
      } else if (graph_.value(v).constant) {
        args.push_back(-1);  // baked into the rKernel
      } else {
        errors_.push_back(ir::makeError("input '" + graph_.value(v).name + "' of '" + n.name + "' is " +
                                            std::string(ir::dtypeName(graph_.value(v).type.dtype)) +
                                            ", which generated programs do not hold at run time",
                                        n.name));
        args.push_back(-1);
      }
    }
    for (ir::ValueId v : n.outputs) args.push_back(v == ir::kNone || !isWords(v) ? -1 : bufferOf(v, BufferInfo::Kind::Intermediate));
    if (op.kernel.inputsInPlace || op.kernel.outputsInPlace) place(op, args);
    if (op.kernel.workspaceWords > 0) {
      // The rKernel's own global memory (split-K arrival counters), no graph value.
      BufferInfo b;
      b.name = op.name + "/workspace";
      b.numel = op.kernel.workspaceWords;
      b.storage = static_cast<int32_t>(table_.buffers.size());
      args.push_back(b.storage);
      table_.buffers.push_back(std::move(b));
    }
    table_.opArgs.push_back(std::move(args));
  }

  // A copy run in place (kernels/in_place.h): a Concat's inputs live in its
  // output, a Gather's, Slice's or Split's outputs in its input 0, each at
  // its offset; finish() resolves the views of them.
  void place(const schedule::PlannedOp& op, const std::vector<int32_t>& args) {
    const ir::Node& n = graph_.node(op.node);
    const bool inputs = op.kernel.inputsInPlace;
    const size_t parts = inputs ? n.inputs.size() : n.outputs.size();
    const int32_t whole = inputs ? args.at(n.inputs.size()) : args.at(0);
    if (op.kernel.placeOffsets.size() != parts || whole < 0) {
      errors_.push_back(ir::makeError("'" + n.name + "' runs " + op.kernel.name + " with " +
                                          std::to_string(op.kernel.placeOffsets.size()) + " offsets for " +
                                          std::to_string(parts) + " parts",
                                      n.name));
      return;
    }
    for (size_t k = 0; k < parts; ++k) {
      BufferInfo& b = table_.buffers[static_cast<size_t>(args.at(inputs ? k : n.inputs.size() + k))];
      b.storage = whole;
      b.storageOffset = op.kernel.placeOffsets[k];
    }
  }

  // Every buffer's storage a root (its own storage) and its offset from
  // there: a view of a placed input ends in the Concat's buffer.
  void resolveStorage() {
    auto& bufs = table_.buffers;
    std::vector<std::pair<int32_t, int64_t>> root(bufs.size());
    for (size_t i = 0; i < bufs.size(); ++i) {
      auto s = static_cast<int32_t>(i);
      int64_t offset = 0;
      for (size_t hops = 0; bufs[static_cast<size_t>(s)].storage != s && hops <= bufs.size(); ++hops) {
        offset += bufs[static_cast<size_t>(s)].storageOffset;
        s = bufs[static_cast<size_t>(s)].storage;
      }
      root[i] = {s, offset};
    }
    for (size_t i = 0; i < bufs.size(); ++i) std::tie(bufs[i].storage, bufs[i].storageOffset) = root[i];
  }

  ir::Result<BufferTable> finish() {
    resolveStorage();
    // Graph inputs and outputs always get a buffer, so the runtime can bind them.
    const auto& ins = graph_.inputs();
    for (size_t i = 0; i < ins.size(); ++i)
      if (isWords(ins[i])) {
        const int32_t b = bufferOf(ins[i], BufferInfo::Kind::Input);
        if (b >= 0) table_.buffers[static_cast<size_t>(b)].inputIndex = static_cast<int32_t>(i);
      }
    const auto& outs = graph_.outputs();
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!isWords(outs[i])) {
        errors_.push_back(ir::makeError("graph output '" + graph_.value(outs[i]).name + "' is " +
                                            std::string(ir::dtypeName(graph_.value(outs[i]).type.dtype)) +
                                            ", which generated programs do not hold",
                                        graph_.value(outs[i]).name));
        continue;
      }
      const int32_t b = bufferOf(outs[i], BufferInfo::Kind::Output);
      if (b < 0) continue;
      BufferInfo& info = table_.buffers[static_cast<size_t>(b)];
      info.outputIndex = static_cast<int32_t>(i);
      if (info.kind == BufferInfo::Kind::Intermediate) info.kind = BufferInfo::Kind::Output;
    }
    if (!errors_.empty()) return errors_;
    return std::move(table_);
  }

 private:
  const ir::Graph& graph_;
  BufferTable table_;
  std::map<ir::ValueId, int32_t> index_;
  std::vector<ir::Diagnostic> errors_;
};

}  // namespace

ir::Result<BufferTable> buildBufferTable(const schedule::Plan& plan, const ir::Graph& given) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  Builder b(graph);
  for (const schedule::PlannedOp& op : plan.ops) b.addOp(op);
  return b.finish();
}

}  // namespace rammer::codegen

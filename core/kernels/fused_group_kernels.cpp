#include "core/kernels/fused_group_kernels.h"

#include <algorithm>
#include <memory>

#include "core/kernels/cuda_library.h"
#include "core/kernels/instantiation.h"
#include "core/ops/group/fused_group.h"

namespace rammer::kernels {

namespace {

using ops::GroupGeometry;
using ops::MemberGeometry;
using ops::MemberKind;
using ops::Span;

constexpr int kThreads = 256;

// Float offsets of each member's range in shared memory (the sink has none).
std::vector<int64_t> sharedOffsets(const GroupGeometry& g) {
  std::vector<int64_t> off(g.numMembers(), 0);
  int64_t at = 0;
  for (size_t j = 0; j + 1 < g.numMembers(); ++j) {
    off[j] = at;
    at += g.maxExtent(j) * g.slabElements(j);
  }
  return off;
}

// ---- the instantiation of cuda/fused_group.cuh ----

std::string str(int64_t v) { return std::to_string(v); }

class GroupTypes {
 public:
  explicit GroupTypes(const GroupGeometry& g) : geometry_(g), offsets_(sharedOffsets(g)) {}

  // Member j as a RammerGroupMember; an element-wise member's expression
  // goes into `locals` as the type Op<j>.
  std::string member(size_t j, std::string& locals) const {
    const ops::GroupMember& m = geometry_.spec().members[j];
    return "RammerGroupMember<" + dimsArg(m.shape) + ", " + str(m.splitDim) + ", " + llArg(geometry_.slabElements(j)) +
           ", " + llArg(offsets_[j]) + ", " + maps(j) + ", " + body(j, locals) + ">";
  }

 private:
  // How member j reads input `slot`, at coordinates from `lead` on.
  std::string read(size_t j, size_t slot, size_t lead) const {
    const int64_t ref = geometry_.spec().members[j].inputs.at(slot);
    if (ref == ops::kOmittedInput) throw ops::OpError("fused group member " + str(static_cast<int64_t>(j)) + " reads an omitted input");
    if (ref >= 0)
      return "RammerGroupInput<" + str(ref) + ", " + str(static_cast<int64_t>(lead)) + ", " +
             dimsArg(geometry_.inputType(static_cast<size_t>(ref)).shape) + ">";
    const size_t p = ops::memberOf(ref);
    const ops::GroupMember& producer = geometry_.spec().members[p];
    return "RammerGroupBuffer<" + str(static_cast<int64_t>(p)) + ", " + llArg(offsets_[p]) + ", " +
           str(producer.splitDim) + ", " + str(static_cast<int64_t>(lead)) + ", " + dimsArg(producer.shape) + ">";
  }

  std::string maps(size_t j) const {
    const ops::GroupMember& m = geometry_.spec().members[j];
    std::string s = "RammerGroupMaps<";
    bool first = true;
    for (size_t slot = 0; slot < m.inputs.size(); ++slot) {
      if (!ops::isMemberRef(m.inputs[slot])) continue;
      const size_t p = ops::memberOf(m.inputs[slot]);
      const ops::GroupMember& pm = geometry_.spec().members[p];
      const ops::AxisMap& map = geometry_.maps(j)[slot];
      s += (first ? "" : ", ") + std::string("RammerGroupMap<") + str(static_cast<int64_t>(p)) + ", " +
           boolArg(map.kind == ops::AxisMap::Kind::Blocks) + ", " + llArg(map.outBlock) + ", " + llArg(map.inBlock) +
           ", " + llArg(map.stride) + ", " + llArg(map.offset) + ", " + llArg(map.extent) + ", " +
           llArg(pm.shape.at(static_cast<size_t>(pm.splitDim))) + ">";
      first = false;
    }
    return s + ">";
  }

  std::string window(const MemberGeometry& m) const {
    std::string s = "RammerGroupWindow<" + str(static_cast<int64_t>(m.spatial));
    const ops::Window3& w = m.window;
    for (size_t a = 0; a < 3; ++a)
      s += ", RammerWindowAxis<" + str(w.out[a]) + ", " + str(w.in[a]) + ", " + str(w.kernel[a]) + ", " +
           str(w.stride[a]) + ", " + str(w.padBegin[a]) + ", " + str(w.padEnd[a]) + ", " + str(w.dilation[a]) + ">";
    return s + ">";
  }

  std::string body(size_t j, std::string& locals) const {
    const MemberGeometry& m = geometry_.member(j);
    if (m.kind == MemberKind::Elementwise) {
      const std::string op = "Op" + str(static_cast<int64_t>(j));
      std::vector<std::string> xs;
      std::string s = "RammerGroupElementwise<" + op;
      for (size_t k = 0; k < m.inputs.size(); ++k) {
        xs.push_back("x" + str(static_cast<int64_t>(k)));
        s += ", " + read(j, k, m.output.size() - m.inputs[k].size());
      }
      locals += cudaExpressionOp(op, xs.size(), m.expr->toCuda(xs, "const float y", "      "), "y");
      return s + ">";
    }
    if (m.kind == MemberKind::Conv) {
      const int64_t cig = m.inputs[0][1] / m.groups, cog = m.output[1] / m.groups;
      return "RammerGroupConv<" + llArg(cig) + ", " + llArg(cog) + ", " + boolArg(m.hasBias) + ", " + read(j, 0, 0) +
             ", " + read(j, 1, 0) + ", " + (m.hasBias ? read(j, 2, 0) : std::string("RammerGroupNoRead")) + ", " +
             window(m) + ">";
    }
    return "RammerGroupPool<" + boolArg(m.kind == MemberKind::MaxPool) + ", " + boolArg(m.countIncludePad) + ", " +
           llArg(m.window.kernelSize()) + ", " + read(j, 0, 0) + ", " + window(m) + ">";
  }

  const GroupGeometry& geometry_;
  std::vector<int64_t> offsets_;
};

std::string cudaSource(const GroupGeometry& g, const NodeInfo& info, const std::string& fn) {
  int64_t largest = 0;
  for (const ir::Shape& s : info.inShapes) largest = std::max(largest, ir::numElements(s));
  for (const ops::GroupMember& m : g.spec().members) largest = std::max(largest, ir::numElements(m.shape));
  const ops::GroupMember& sink = g.spec().members.back();
  TemplateCall call;
  call.name = "rammer_fused_group";
  std::string members = "RammerGroup<";
  const GroupTypes types(g);
  for (size_t j = 0; j < g.numMembers(); ++j) members += (j ? ", " : "") + types.member(j, call.locals);
  call.templateArgs = {indexType(largest + kThreads), str(kThreads), llArg(g.spec().piece),
                       llArg(sink.shape.at(static_cast<size_t>(sink.splitDim))), members + ">"};
  call.args = {"rtask_id", "tid", "smem", "out0"};
  for (size_t k = 0; k < info.numInputs(); ++k) call.args.push_back("in" + str(static_cast<int64_t>(k)));
  return cudaInstantiation(fn, info.numInputs(), info.numOutputs(), call);
}

// The range of group input `slot` an instance reads: the hull of its
// members' reads, when they all read it along one dim; nullopt otherwise.
std::optional<TileSpan> inputRange(const GroupGeometry& g, int64_t instance, size_t slot) {
  const std::vector<Span> r = g.ranges(instance);
  std::optional<TileSpan> out;
  for (size_t j = 0; j < g.numMembers(); ++j) {
    const ops::GroupMember& m = g.spec().members[j];
    for (size_t s = 0; s < m.inputs.size(); ++s) {
      if (m.inputs[s] != static_cast<int64_t>(slot)) continue;
      const ops::AxisMap& map = g.maps(j)[s];
      if (map.kind == ops::AxisMap::Kind::Whole) return std::nullopt;
      const Span in = map.inputSpan(r[j], g.inputType(slot).shape.at(static_cast<size_t>(map.inputDim)));
      if (!out) {
        out = TileSpan{map.inputDim, in.lo, in.hi};
      } else if (out->dim != map.inputDim) {
        return std::nullopt;
      } else if (in.lo < in.hi) {
        if (out->lo >= out->hi) out->lo = in.lo, out->hi = in.hi;
        out->lo = std::min(out->lo, in.lo);
        out->hi = std::max(out->hi, in.hi);
      }
    }
  }
  return out;
}

}  // namespace

RKernel fusedGroupEstimate(const GroupGeometry& g) {
  const ops::GroupMember& sink = g.spec().members.back();
  RKernel k;
  k.name = "fused_group";
  k.family = "fused_group";
  k.params = {{"instances", g.numInstances()},
              {"members", static_cast<int64_t>(g.numMembers())},
              {"piece", g.spec().piece},
              {"split_dim", sink.splitDim},
              {"working_set", g.workingSetBytes()}};
  k.numRTasks = g.numInstances();
  k.block = Dim3{kThreads, 1, 1};
  k.sharedBytes = g.workingSetBytes();
  k.regsEstimate = 40;
  k.syncCount = static_cast<int>(g.numMembers()) - 1;
  k.flops = g.flops();
  const double read = g.inputBytesRead();
  k.bytes = read + 4.0 * static_cast<double>(ir::numElements(sink.shape));
  // Instances re-read weights and halos other instances brought on chip.
  k.l2Bytes = std::max(0.0, read - g.inputBytesUnique());
  return k;
}

std::vector<RKernel> fusedGroupKernels(const NodeInfo& info) {
  if (info.numOutputs() != 1) throw ops::OpError("FusedGroup has one output");
  std::vector<ir::TensorType> types;
  for (size_t k = 0; k < info.numInputs(); ++k)
    types.push_back(info.inPresent[k] ? ir::TensorType{ir::DType::Float32, info.inShapes[k]} : ir::TensorType{});
  auto g = std::make_shared<const GroupGeometry>(ops::decodeGroup(info.node->attrs, info.numInputs()), types,
                                                 info.graph->opsetVersion);
  const ops::GroupMember& sink = g->spec().members.back();
  if (sink.shape != info.outShapes.at(0)) throw ops::OpError("FusedGroup's last member does not have the node's output shape");
  RKernel k = fusedGroupEstimate(*g);
  k.cudaFunction = info.functionName(k.name);
  k.cudaSource = cudaSource(*g, info, k.cudaFunction);
  useCudaLibrary(k, kFusedGroup);
  // Instance k writes the sink's rows [lo, hi) along its split dim: one
  // run per index of the dims before it.
  k.written = [g](int64_t task, std::vector<WrittenRun>& runs) {
    const ops::GroupMember& sink = g->spec().members.back();
    const Span r = g->ranges(task).back();
    if (r.lo >= r.hi) return;
    const auto split = static_cast<size_t>(sink.splitDim);
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < split; ++d) outer *= sink.shape[d];
    for (size_t d = split + 1; d < sink.shape.size(); ++d) inner *= sink.shape[d];
    const int64_t extent = sink.shape[split];
    for (int64_t o = 0; o < outer; ++o) runs.push_back(WrittenRun{0, (o * extent + r.lo) * inner, r.size() * inner, 1});
  };
  k.writes = [g](int64_t task) -> std::optional<TileSpan> {
    const ops::GroupMember& sink = g->spec().members.back();
    const Span r = g->ranges(task).back();
    return TileSpan{sink.splitDim, r.lo, r.hi};
  };
  k.reads = [g](int64_t task, size_t slot) { return inputRange(*g, task, slot); };
  return {std::move(k)};
}

}  // namespace rammer::kernels

#include "core/kernels/fused_group_kernels.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/ops/group/fused_group.h"

namespace rammer::kernels {

namespace {

using ops::GroupGeometry;
using ops::MemberGeometry;
using ops::MemberKind;
using ops::Span;

constexpr int kThreads = 256;

std::string str(int64_t v) { return std::to_string(v); }

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

// ---- CUDA text ----

class CudaWriter {
 public:
  CudaWriter(const GroupGeometry& g, std::string idx) : geometry_(g), idx_(std::move(idx)) {}

  std::string member(size_t j) const {
    const ops::GroupMember& m = geometry_.spec().members[j];
    const size_t rank = m.shape.size();
    const std::string J = str(static_cast<int64_t>(j));
    std::string s = "  for (" + idx_ + " e = tid; active && e < L" + J + " * " + str(geometry_.slabElements(j)) + "; e += " +
                    str(kThreads) + ") {\n    " + idx_ + " q = e;\n";
    std::vector<std::string> c(rank);
    for (size_t k = rank; k-- > 0;) {
      c[k] = "c" + str(static_cast<int64_t>(k));
      const bool split = static_cast<int>(k) == m.splitDim;
      const std::string ext = split ? "L" + J : str(m.shape[k]);
      s += "    const " + idx_ + " " + c[k] + " = " + (split ? "lo" + J + " + " : "") + "q % " + ext + ";\n";
      if (k > 0) s += "    q /= " + ext + ";\n";
    }
    s += "    (void)q;";
    for (const std::string& v : c) s += " (void)" + v + ";";
    s += "\n    float v;\n    {\n" + body(j, c) + "    }\n";
    if (j + 1 < geometry_.numMembers()) s += "    b" + J + "[e] = v;\n";
    else s += "    out0[" + globalIndex(m.shape, c) + "] = v;\n";
    return s + "  }\n";
  }

 private:
  static std::string globalIndex(const ir::Shape& shape, const std::vector<std::string>& c) {
    std::string s;
    int64_t stride = 1;
    for (size_t k = shape.size(); k-- > 0;) {
      if (shape[k] != 1) s = "(" + c[k] + ")" + (stride == 1 ? "" : " * " + str(stride)) + (s.empty() ? "" : " + " + s);
      stride *= shape[k];
    }
    return s.empty() ? "0" : s;
  }

  // Horner over member p's range: its split dim has extent L<p>, origin lo<p>.
  std::string bufferIndex(size_t p, const std::vector<std::string>& c) const {
    const ops::GroupMember& m = geometry_.spec().members[p];
    const std::string P = str(static_cast<int64_t>(p));
    std::string s;
    for (size_t k = 0; k < m.shape.size(); ++k) {
      const bool split = static_cast<int>(k) == m.splitDim;
      const std::string coord = split ? "(" + c[k] + " - lo" + P + ")" : "(" + c[k] + ")";
      const std::string ext = split ? "L" + P : str(m.shape[k]);
      s = s.empty() ? coord : "(" + s + ") * " + ext + " + " + coord;
    }
    return s.empty() ? "0" : s;
  }

  std::string read(size_t j, size_t slot, const std::vector<std::string>& c) const {
    const int64_t ref = geometry_.spec().members[j].inputs.at(slot);
    if (ref >= 0) return "in" + str(ref) + "[" + globalIndex(geometry_.inputType(static_cast<size_t>(ref)).shape, c) + "]";
    const size_t p = ops::memberOf(ref);
    return "b" + str(static_cast<int64_t>(p)) + "[" + bufferIndex(p, c) + "]";
  }

  // Statements that set `v` for output element (c0, c1, ...).
  std::string body(size_t j, const std::vector<std::string>& c) const {
    const MemberGeometry& m = geometry_.member(j);
    const std::string in = "      ";
    if (m.kind == MemberKind::Elementwise) {
      std::vector<std::string> reads;
      for (size_t k = 0; k < m.inputs.size(); ++k) {
        const ir::Shape& s = m.inputs[k];
        const size_t lead = m.output.size() - s.size();
        std::vector<std::string> ic;
        for (size_t e = 0; e < s.size(); ++e) ic.push_back(s[e] == 1 ? "0" : c[lead + e]);
        reads.push_back(read(j, k, ic));
      }
      return m.expr->toCuda(reads, "v", in);
    }
    const bool conv = m.kind == MemberKind::Conv;
    const size_t off = 3 - m.spatial;
    std::string s;
    std::string close;
    std::vector<std::string> xc{c[0], c[1]}, wc{c[1], "ci"};
    if (conv) {
      const int64_t cig = m.inputs[0][1] / m.groups, cog = m.output[1] / m.groups;
      xc[1] = "g * " + str(cig) + " + ci";
      s += in + "float acc = 0.0f;\n" + in + "const " + idx_ + " g = " + c[1] + " / " + str(cog) + ";\n";
      s += in + "for (" + idx_ + " ci = 0; ci < " + str(cig) + "; ++ci) {\n";
      close = in + "}\n";
    } else if (m.kind == MemberKind::MaxPool) {
      s += in + "float acc = -INFINITY;\n";
    } else {
      s += in + "float acc = 0.0f;\n" + in + "int cnt = 0;\n";
    }
    for (size_t t = 0; t < m.spatial; ++t) {
      const size_t w = off + t;
      const std::string T = str(static_cast<int64_t>(t)), k = "k" + T, i = "i" + T;
      s += in + "for (" + idx_ + " " + k + " = 0; " + k + " < " + str(m.window.kernel[w]) + "; ++" + k + ") {\n";
      s += in + "  const " + idx_ + " " + i + " = " + c[2 + t] + " * " + str(m.window.stride[w]) + " - " +
           str(m.window.padBegin[w]) + " + " + k + " * " + str(m.window.dilation[w]) + ";\n";
      s += in + "  if (" + i + " < 0 || " + i + " >= " + str(m.window.in[w]) + ") continue;\n";
      xc.push_back(i);
      wc.push_back(k);
      close = in + "}\n" + close;
    }
    const std::string x = read(j, 0, xc);
    if (conv) s += in + "  acc += " + x + " * " + read(j, 1, wc) + ";\n";
    else if (m.kind == MemberKind::MaxPool) s += in + "  acc = fmaxf(acc, " + x + ");\n";
    else s += in + "  acc += " + x + ";\n" + in + "  ++cnt;\n";
    s += close;
    if (conv) s += in + "v = " + (m.hasBias ? "acc + " + read(j, 2, {c[1]}) : std::string("acc")) + ";\n";
    else if (m.kind == MemberKind::MaxPool) s += in + "v = acc;\n";
    else if (m.countIncludePad) s += in + "(void)cnt;\n" + in + "v = acc / " + str(m.window.kernelSize()) + ".0f;\n";
    else s += in + "v = cnt ? acc / (float)cnt : 0.0f;\n";
    return s;
  }

  const GroupGeometry& geometry_;
  std::string idx_;
};

// Statements computing each member's range for instance `rtask_id` into
// lo<j>, L<j>: GroupGeometry::ranges in the generated code's arithmetic
// (no table: a large group's would not fit constant memory).
std::string cudaRanges(const GroupGeometry& g, const std::string& idx) {
  const size_t n = g.numMembers();
  const ops::GroupMember& sink = g.spec().members.back();
  const std::string last = str(static_cast<int64_t>(n - 1));
  const std::string extent = str(sink.shape.at(static_cast<size_t>(sink.splitDim)));
  const std::string piece = str(g.spec().piece);
  std::string s;
  for (size_t j = 0; j + 1 < n; ++j) {
    const std::string J = str(static_cast<int64_t>(j));
    s += "  " + idx + " lo" + J + " = 0, hi" + J + " = 0;\n  bool any" + J + " = false;\n";
  }
  s += "  " + idx + " lo" + last + " = (" + idx + ")rtask_id * " + piece + ", hi" + last + " = lo" + last + " + " + piece +
       " < " + extent + " ? lo" + last + " + " + piece + " : " + extent + ";\n";
  for (size_t j = n; j-- > 0;) {
    const std::string J = str(static_cast<int64_t>(j));
    s += "  if (lo" + J + " >= hi" + J + ") lo" + J + " = hi" + J + " = 0;\n";
    const ops::GroupMember& m = g.spec().members[j];
    for (size_t slot = 0; slot < m.inputs.size(); ++slot) {
      if (!ops::isMemberRef(m.inputs[slot])) continue;
      const size_t p = ops::memberOf(m.inputs[slot]);
      const std::string P = str(static_cast<int64_t>(p));
      const ops::GroupMember& pm = g.spec().members[p];
      const std::string size = str(pm.shape.at(static_cast<size_t>(pm.splitDim)));
      const ops::AxisMap& map = g.maps(j)[slot];
      std::string a, b;
      if (map.kind == ops::AxisMap::Kind::Blocks) {
        a = "lo" + J + " / " + str(map.outBlock) + " * " + str(map.inBlock);
        b = "((hi" + J + " - 1) / " + str(map.outBlock) + " + 1) * " + str(map.inBlock);
      } else {
        a = "lo" + J + " * " + str(map.stride) + " - " + str(map.offset);
        b = "(hi" + J + " - 1) * " + str(map.stride) + " - " + str(map.offset) + " + " + str(map.extent);
      }
      s += "  if (hi" + J + " > lo" + J + ") {\n";
      s += "    " + idx + " a = " + a + ", b = " + b + ";\n";
      s += "    a = a < 0 ? 0 : a > " + size + " ? " + size + " : a;\n";
      s += "    b = b < a ? a : b > " + size + " ? " + size + " : b;\n";
      s += "    if (a < b) {\n";
      s += "      if (!any" + P + " || a < lo" + P + ") lo" + P + " = a;\n";
      s += "      if (!any" + P + " || b > hi" + P + ") hi" + P + " = b;\n";
      s += "      any" + P + " = true;\n    }\n  }\n";
    }
  }
  for (size_t j = 0; j < n; ++j) {
    const std::string J = str(static_cast<int64_t>(j));
    s += "  const " + idx + " L" + J + " = hi" + J + " - lo" + J + ";\n";
  }
  return s;
}

std::string cudaSource(const GroupGeometry& g, const NodeInfo& info, const std::string& fn) {
  const size_t n = g.numMembers();
  int64_t largest = 0;
  for (const ir::Shape& s : info.inShapes) largest = std::max(largest, ir::numElements(s));
  for (const ops::GroupMember& m : g.spec().members) largest = std::max(largest, ir::numElements(m.shape));
  const std::string idx = indexType(largest + kThreads);
  const std::vector<int64_t> off = sharedOffsets(g);
  std::string s = cudaSignature(fn, info.numInputs(), info.numOutputs());
  s += "  const bool active = tid < " + str(kThreads) + ";\n  (void)smem;\n";
  s += cudaRanges(g, idx);
  for (size_t j = 0; j + 1 < n; ++j)
    s += "  float* b" + str(static_cast<int64_t>(j)) + " = smem + " + str(off[j]) + ";\n";
  const CudaWriter w(g, idx);
  for (size_t j = 0; j < n; ++j) {
    s += w.member(j);
    if (j + 1 < n) s += "  __syncthreads();\n";
  }
  return s + "}\n";
}

// ---- CPU tile: the same loops ----

// A tensor or a member's range: address = base + origin + sum c[k] * strides[k].
struct View {
  float* base = nullptr;
  std::vector<int64_t> strides;
  int64_t origin = 0;
  float at(const int64_t* c) const {
    int64_t o = origin;
    for (size_t k = 0; k < strides.size(); ++k) o += c[k] * strides[k];
    return base[o];
  }
};

View wholeView(const float* base, const ir::Shape& shape) {
  return {const_cast<float*>(base), rowMajorStrides(shape), 0};
}

View rangeView(float* base, const ir::Shape& shape, int dim, Span r) {
  ir::Shape ext = shape;
  ext[static_cast<size_t>(dim)] = r.size();
  View v{base, rowMajorStrides(ext), 0};
  v.origin = -r.lo * v.strides[static_cast<size_t>(dim)];
  return v;
}

void computeMember(const MemberGeometry& m, const std::vector<View>& ins, const View& out, int splitDim, Span r) {
  const size_t rank = m.output.size();
  std::vector<int64_t> lo(rank, 0), hi(m.output.begin(), m.output.end());
  lo[static_cast<size_t>(splitDim)] = r.lo;
  hi[static_cast<size_t>(splitDim)] = r.hi;
  for (size_t k = 0; k < rank; ++k)
    if (lo[k] >= hi[k]) return;
  std::vector<int64_t> c = lo;
  if (m.kind == MemberKind::Elementwise) {
    // Runs along the last dim: one stride per input.
    const size_t n = ins.size();
    std::vector<std::vector<int64_t>> aligned(n, std::vector<int64_t>(rank, 0));
    for (size_t k = 0; k < n; ++k) {
      const size_t lead = rank - m.inputs[k].size();
      for (size_t e = 0; e < m.inputs[k].size(); ++e)
        if (m.inputs[k][e] != 1) aligned[k][lead + e] = ins[k].strides[e];
    }
    std::vector<const float*> at(n);
    std::vector<int64_t> inner(n);
    for (size_t k = 0; k < n; ++k) inner[k] = rank ? aligned[k][rank - 1] : 0;
    const int64_t runLo = rank ? lo[rank - 1] : 0, run = rank ? hi[rank - 1] - lo[rank - 1] : 1;
    while (true) {
      if (rank) c[rank - 1] = runLo;
      for (size_t k = 0; k < n; ++k) {
        int64_t o = ins[k].origin;
        for (size_t d = 0; d < rank; ++d) o += c[d] * aligned[k][d];
        at[k] = ins[k].base + o;
      }
      int64_t o = out.origin;
      for (size_t d = 0; d < rank; ++d) o += c[d] * out.strides[d];
      m.expr->evalRow(at.data(), inner.data(), out.base + o, run);
      size_t d = rank ? rank - 1 : 0;
      while (d-- > 0 && ++c[d] == hi[d]) c[d] = lo[d];
      if (d == static_cast<size_t>(-1)) return;
    }
  }
  const ops::Window3& w = m.window;
  const size_t off = 3 - m.spatial;
  const bool conv = m.kind == MemberKind::Conv;
  const int64_t cig = conv ? m.inputs[0][1] / m.groups : 1, cog = conv ? m.output[1] / m.groups : 1;
  // Canonical 3-D strides: unused leading dims have stride 0 and extent 1.
  int64_t xs[3] = {0, 0, 0}, ws[3] = {0, 0, 0};
  for (size_t t = 0; t < m.spatial; ++t) {
    xs[off + t] = ins[0].strides[2 + t];
    if (conv) ws[off + t] = ins[1].strides[2 + t];
  }
  while (true) {
    int64_t o3[3] = {0, 0, 0};
    for (size_t t = 0; t < m.spatial; ++t) o3[off + t] = c[2 + t];
    float acc = m.kind == MemberKind::MaxPool ? -INFINITY : 0.0f;
    int cnt = 0;
    const int64_t g = conv ? c[1] / cog : 0;
    for (int64_t ci = 0; ci < cig; ++ci) {
      const int64_t xBase = ins[0].origin + c[0] * ins[0].strides[0] + (conv ? g * cig + ci : c[1]) * ins[0].strides[1];
      const int64_t wBase = conv ? ins[1].origin + c[1] * ins[1].strides[0] + ci * ins[1].strides[1] : 0;
      for (int64_t k0 = 0; k0 < w.kernel[0]; ++k0) {
        const int64_t i0 = o3[0] * w.stride[0] - w.padBegin[0] + k0 * w.dilation[0];
        if (i0 < 0 || i0 >= w.in[0]) continue;
        for (int64_t k1 = 0; k1 < w.kernel[1]; ++k1) {
          const int64_t i1 = o3[1] * w.stride[1] - w.padBegin[1] + k1 * w.dilation[1];
          if (i1 < 0 || i1 >= w.in[1]) continue;
          for (int64_t k2 = 0; k2 < w.kernel[2]; ++k2) {
            const int64_t i2 = o3[2] * w.stride[2] - w.padBegin[2] + k2 * w.dilation[2];
            if (i2 < 0 || i2 >= w.in[2]) continue;
            const float x = ins[0].base[xBase + i0 * xs[0] + i1 * xs[1] + i2 * xs[2]];
            if (conv) acc += x * ins[1].base[wBase + k0 * ws[0] + k1 * ws[1] + k2 * ws[2]];
            else if (m.kind == MemberKind::MaxPool) acc = std::max(acc, x);
            else {
              acc += x;
              ++cnt;
            }
          }
        }
      }
    }
    float v = acc;
    if (conv && m.hasBias) v = acc + ins[2].at(&c[1]);
    else if (m.kind == MemberKind::AveragePool)
      v = m.countIncludePad ? acc / static_cast<float>(w.kernelSize()) : (cnt ? acc / static_cast<float>(cnt) : 0.0f);
    int64_t o = out.origin;
    for (size_t d = 0; d < rank; ++d) o += c[d] * out.strides[d];
    out.base[o] = v;
    size_t d = rank;
    while (d-- > 0 && ++c[d] == hi[d]) c[d] = lo[d];
    if (d == static_cast<size_t>(-1)) return;
  }
}

void computeInstance(const GroupGeometry& g, const std::vector<int64_t>& off, int64_t instance, const TaskBuffers& b,
                     float* scratch) {
  const std::vector<Span> r = g.ranges(instance);
  const size_t n = g.numMembers();
  auto memberView = [&](size_t p) {
    const ops::GroupMember& m = g.spec().members[p];
    return rangeView(scratch + off[p], m.shape, m.splitDim, r[p]);
  };
  for (size_t j = 0; j < n; ++j) {
    const ops::GroupMember& m = g.spec().members[j];
    std::vector<View> ins;
    for (int64_t ref : m.inputs) {
      if (ref == ops::kOmittedInput) ins.push_back(View{});
      else if (ref >= 0) ins.push_back(wholeView(b.inputs.at(static_cast<size_t>(ref)), g.inputType(static_cast<size_t>(ref)).shape));
      else ins.push_back(memberView(ops::memberOf(ref)));
    }
    const View out = j + 1 < n ? memberView(j) : wholeView(b.outputs.at(0), m.shape);
    computeMember(g.member(j), ins, out, m.splitDim, r[j]);
  }
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
  const std::vector<int64_t> off = sharedOffsets(*g);
  k.cpu = [g, off](int64_t task, const TaskBuffers& b, float* scratch) { computeInstance(*g, off, task, b, scratch); };
  k.writes = [g](int64_t task) -> std::optional<TileSpan> {
    const ops::GroupMember& sink = g->spec().members.back();
    const Span r = g->ranges(task).back();
    return TileSpan{sink.splitDim, r.lo, r.hi};
  };
  k.reads = [g](int64_t task, size_t slot) { return inputRange(*g, task, slot); };
  return {std::move(k)};
}

}  // namespace rammer::kernels

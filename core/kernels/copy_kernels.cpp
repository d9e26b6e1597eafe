#include "core/kernels/copy_kernels.h"

#include <cstring>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>

#include "core/ir/words.h"
#include "core/kernels/cuda_library.h"
#include "core/kernels/gather_kernels.h"
#include "core/kernels/instantiation.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_compute.h"

namespace rammer::kernels {

namespace {

// One box of output elements and where each reads from. Input position =
// inBase + sum_d inOffset[d][c_d]; the element is `fill` when some c_d lies
// outside [validLo[d], validHi[d]) (constant padding).
struct Segment {
  int inSlot = 0, outSlot = 0;
  int64_t start = 0;  // first element in the kernel's flat range
  std::vector<int64_t> ext;
  std::vector<int64_t> outStride;
  int64_t outBase = 0;
  int64_t inBase = 0;
  std::vector<std::vector<int64_t>> inOffset;
  std::vector<int64_t> validLo, validHi;
  float fill = 0;       // a word: the float, or an int32's bits (intFill)
  bool intFill = false;
  bool allFill = false;

  int64_t size() const { return std::accumulate(ext.begin(), ext.end(), int64_t{1}, std::multiplies<>()); }
};

void decompose(int64_t r, const std::vector<int64_t>& ext, std::vector<int64_t>& c) {
  for (size_t d = ext.size(); d-- > 0;) {
    c[d] = r % ext[d];
    r /= ext[d];
  }
}

// Factors a per-element source map (-1 for fill) over the index box `ext`
// into per-dim offsets; nullopt when the map is not a sum of per-dim terms.
std::optional<Segment> factor(std::span<const int64_t> map, const std::vector<int64_t>& ext) {
  Segment s;
  s.ext = ext;
  const size_t rank = ext.size();
  s.inOffset.assign(rank, {});
  s.validLo.assign(rank, 0);
  s.validHi.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    s.inOffset[d].assign(static_cast<size_t>(ext[d]), 0);
    s.validHi[d] = ext[d];
  }
  const auto n = static_cast<int64_t>(map.size());
  int64_t base = 0;
  while (base < n && map[static_cast<size_t>(base)] < 0) ++base;
  if (base == n) {
    s.allFill = true;
    return s;
  }
  std::vector<int64_t> cb(rank), c(rank);
  decompose(base, ext, cb);
  const std::vector<int64_t> st = rowMajorStrides(ext);
  const int64_t mb = map[static_cast<size_t>(base)];
  s.inBase = mb;
  for (size_t d = 0; d < rank; ++d) {
    int64_t lo = -1, hi = -1;
    for (int64_t k = 0; k < ext[d]; ++k) {
      const int64_t e = base + (k - cb[d]) * st[d];
      const int64_t m = map[static_cast<size_t>(e)];
      if (m < 0) continue;
      if (lo < 0) lo = k;
      else if (hi >= 0) return std::nullopt;  // valid range not contiguous
      s.inOffset[d][static_cast<size_t>(k)] = m - mb;
      if (k + 1 == ext[d] || map[static_cast<size_t>(e + st[d])] < 0) hi = k + 1;
    }
    s.validLo[d] = lo;
    s.validHi[d] = hi;
  }
  for (int64_t e = 0; e < n; ++e) {
    decompose(e, ext, c);
    bool valid = true;
    int64_t v = mb;
    for (size_t d = 0; d < rank; ++d) {
      valid = valid && c[d] >= s.validLo[d] && c[d] < s.validHi[d];
      v += s.inOffset[d][static_cast<size_t>(c[d])];
    }
    if (map[static_cast<size_t>(e)] != (valid ? v : -1)) return std::nullopt;
  }
  return s;
}

// The most output elements a map is probed for: eight bytes each, so about
// 0.5 GB. Expand and Tile, the ops that turn a tiny input into a huge
// output, need no probe (expandSegment, tileSegment).
constexpr int64_t kMaxProbedElements = int64_t{1} << 26;

// Where each output element of the reference op comes from: the op runs on
// an index-valued copy of input 0 (constant padding filled with -1). One
// int64 tensor per output (empty when the output is absent).
std::vector<ir::Tensor> sourceMaps(const NodeInfo& info, double& fill) {
  const ir::Node& node = *info.node;
  for (size_t o = 0; o < info.numOutputs(); ++o)
    if (info.outPresent[o] && ir::numElements(info.outShapes[o]) > kMaxProbedElements)
      throw ops::OpError("output " + std::to_string(o) + " " + ir::shapeToString(info.outShapes[o]) +
                         " has more than " + std::to_string(kMaxProbedElements) +
                         " elements, too many to map one by one");
  const ops::OpDef* def = ops::OpRegistry::builtin().find(node.domain, node.opType);
  if (!def) throw ops::OpError("the op registry has no " + node.opType);
  ir::Node probe = node;
  const int64_t opset = info.graph->opsetVersion;
  std::vector<ir::TensorType> types;
  std::vector<const ir::Tensor*> values;
  for (size_t i = 0; i < info.numInputs(); ++i) {
    const ir::ValueId v = node.inputs[i];
    types.push_back(v == ir::kNone ? ir::TensorType{} : info.graph->value(v).type);
    values.push_back(i == 0 ? nullptr : info.constant(i));
    if (i > 0 && v != ir::kNone && !values.back())
      throw ops::OpError("input " + std::to_string(i) + " must be a constant to bake it into the kernel");
  }
  const bool pad = node.opType == "Pad";
  ir::Tensor minusOne = ir::Tensor::scalar<int64_t>(-1);
  if (pad) {
    if (opset < 11) {
      fill = node.attrs.getFloat("value", 0.0f);
      probe.attrs.set("value", -1.0f);
    } else {
      fill = values.size() > 2 && values[2] ? values[2]->getDouble(0) : 0.0;
      if (types.size() < 3) {
        types.resize(3);
        values.resize(3, nullptr);
        probe.inputs.resize(3, ir::kNone);
      }
    }
  }
  ir::Tensor iota(ir::DType::Int64, info.inShapes[0]);
  std::iota(iota.data<int64_t>(), iota.data<int64_t>() + iota.numel(), int64_t{0});
  types[0] = iota.type();
  values[0] = &iota;
  if (pad && opset >= 11) {
    types[2] = minusOne.type();
    values[2] = &minusOne;
  }
  const ops::OpContext ctx(probe, opset, types, values);
  std::vector<ir::Tensor> outs = ops::computeOp(*def, ctx);
  std::vector<ir::Tensor> maps(info.numOutputs());
  for (size_t o = 0; o < maps.size() && o < outs.size(); ++o) {
    if (!info.outPresent[o]) continue;
    if (outs[o].shape() != info.outShapes[o])
      throw ops::OpError("output " + std::to_string(o) + " has shape " + ir::shapeToString(outs[o].shape()) +
                         " but the graph says " + ir::shapeToString(info.outShapes[o]));
    if (outs[o].dtype() != ir::DType::Int64) throw ops::OpError("the index probe did not keep its int64 type");
    maps[o] = std::move(outs[o]);
  }
  return maps;
}

constexpr int64_t kMaxFlatTable = 65536;  // entries; about 0.5 MB of source

// Index boxes to try for output `o`, best first: a refinement of the output
// shape in which the op is affine along every dim, then the shape itself.
std::vector<std::vector<int64_t>> boxesFor(const NodeInfo& info, size_t o) {
  const ir::Node& node = *info.node;
  const ir::Shape& out = info.outShapes[o];
  const ir::Shape& in = info.inShapes[0];
  std::vector<std::vector<int64_t>> boxes;
  if (node.opType == "Gather" && !in.empty()) {
    const auto axis = static_cast<size_t>(ops::normalizeAxis(node.attrs.getInt("axis", 0), static_cast<int64_t>(in.size())));
    const ir::Tensor* idx = info.constant(1);
    if (idx) {
      std::vector<int64_t> box(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(axis));
      box.push_back(idx->numel());
      box.insert(box.end(), in.begin() + static_cast<std::ptrdiff_t>(axis) + 1, in.end());
      boxes.push_back(box);
    }
  } else if ((node.opType == "DepthToSpace" || node.opType == "SpaceToDepth") && in.size() == 4) {
    const int64_t bs = node.attrs.getInt("blocksize", 1);
    if (node.opType == "DepthToSpace") boxes.push_back({out[0], out[1], in[2], bs, in[3], bs});
    else boxes.push_back({out[0], bs, bs, in[1], out[2], out[3]});
  } else if (node.opType == "Tile" && in.size() == out.size()) {
    std::vector<int64_t> box;
    for (size_t d = 0; d < in.size(); ++d) {
      if (in[d] == 0) {
        box.clear();
        break;
      }
      box.push_back(out[d] / in[d]);
      box.push_back(in[d]);
    }
    if (!box.empty()) boxes.push_back(box);
  }
  boxes.push_back(out);
  // Last resort for maps with no per-dim structure (GatherElements): the
  // flat output with one table entry per element, while the table stays a
  // size the compilers take.
  const int64_t total = ir::numElements(out);
  if (out.size() > 1 && total <= kMaxFlatTable) boxes.push_back({total});
  return boxes;
}

std::vector<Segment> concatSegments(const NodeInfo& info) {
  const ir::Shape& out = info.outShapes[0];
  const auto axis = static_cast<size_t>(
      ops::normalizeAxis(info.node->attrs.getInt("axis", 0), static_cast<int64_t>(out.size())));
  const std::vector<int64_t> ost = rowMajorStrides(out);
  std::vector<Segment> segs;
  int64_t offset = 0;
  for (size_t k = 0; k < info.numInputs(); ++k) {
    const ir::Shape& in = info.inShapes[k];
    // An input with no elements adds nothing; its other dims may be huge
    // ([0, 1000000000] is legal), so no per-dim table is built for it.
    if (ir::numElements(in) == 0) {
      offset += in[axis];
      continue;
    }
    Segment s;
    s.inSlot = static_cast<int>(k);
    s.ext = in;
    s.outStride = ost;
    s.outBase = offset * ost[axis];
    const std::vector<int64_t> ist = rowMajorStrides(in);
    for (size_t d = 0; d < in.size(); ++d) {
      s.inOffset.emplace_back();
      for (int64_t c = 0; c < in[d]; ++c) s.inOffset.back().push_back(c * ist[d]);
      s.validLo.push_back(0);
      s.validHi.push_back(in[d]);
    }
    offset += in[axis];
    if (s.size() > 0) segs.push_back(std::move(s));
  }
  return segs;
}

// Expand needs no probe: an output dim reads the input's aligned dim, or
// stays on its one element where the input broadcasts.
Segment expandSegment(const NodeInfo& info) {
  const ir::Shape& out = info.outShapes[0];
  const ir::Shape& in = info.inShapes[0];
  if (in.size() > out.size()) throw ops::OpError("the input has more dims than the output");
  const size_t lead = out.size() - in.size();
  const std::vector<int64_t> ist = rowMajorStrides(in);
  Segment s;
  s.ext = out;
  s.validLo.assign(out.size(), 0);
  s.validHi = out;
  for (size_t d = 0; d < out.size(); ++d) {
    s.inOffset.emplace_back(static_cast<size_t>(out[d]), 0);
    if (d < lead || in[d - lead] == 1) continue;
    for (int64_t k = 0; k < out[d]; ++k) s.inOffset[d][static_cast<size_t>(k)] = k * ist[d - lead];
  }
  return s;
}

// Tile needs no probe either: over the box (repeat, input extent) per dim,
// the repeat reads nothing new and the extent walks the input.
Segment tileSegment(const NodeInfo& info) {
  const ir::Shape& out = info.outShapes[0];
  const ir::Shape& in = info.inShapes[0];
  if (in.size() != out.size()) throw ops::OpError("the input and output ranks differ");
  const std::vector<int64_t> ist = rowMajorStrides(in);
  Segment s;
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] <= 0 || out[d] % in[d] != 0) throw ops::OpError("the output is not a whole number of input tiles");
    s.ext.insert(s.ext.end(), {out[d] / in[d], in[d]});
    s.inOffset.emplace_back(static_cast<size_t>(out[d] / in[d]), 0);
    s.inOffset.emplace_back();
    for (int64_t k = 0; k < in[d]; ++k) s.inOffset.back().push_back(k * ist[d]);
  }
  s.validLo.assign(s.ext.size(), 0);
  s.validHi = s.ext;
  return s;
}

std::vector<Segment> mappedSegments(const NodeInfo& info) {
  const std::string& op = info.node->opType;
  if (op == "Expand" || op == "Tile") {
    Segment s = op == "Expand" ? expandSegment(info) : tileSegment(info);
    s.outStride = rowMajorStrides(s.ext);
    return {std::move(s)};
  }
  double fill = 0;
  const std::vector<ir::Tensor> maps = sourceMaps(info, fill);
  // Integer data moves as int32 words, so its padding value is one too.
  const bool ints = ir::wordKindOf(info.inTypes.at(0)) == ir::WordKind::Int;
  const float fillWord = ints ? ir::intToWord(static_cast<int32_t>(fill)) : static_cast<float>(fill);
  std::vector<Segment> segs;
  for (size_t o = 0; o < maps.size(); ++o) {
    // An output with no elements needs no segment (nor per-dim tables as
    // long as its other dims).
    if (!info.outPresent[o] || maps[o].empty() || maps[o].numel() == 0) continue;
    std::optional<Segment> s;
    for (const std::vector<int64_t>& box : boxesFor(info, o))
      if ((s = factor(maps[o].values<int64_t>(), box))) break;
    if (!s) throw ops::OpError("its element map is not a sum of per-dim offsets; no copy rKernel fits");
    s->outSlot = static_cast<int>(o);
    s->outStride = rowMajorStrides(s->ext);
    s->fill = fillWord;
    s->intFill = ints;
    segs.push_back(std::move(*s));
  }
  return segs;
}

// An affine per-dim offset table: t[k] = t0 + k*step over the valid range.
bool affine(const std::vector<int64_t>& t, int64_t lo, int64_t hi, int64_t& t0, int64_t& step) {
  if (hi <= lo) {
    t0 = step = 0;
    return true;
  }
  step = hi - lo > 1 ? t[static_cast<size_t>(lo + 1)] - t[static_cast<size_t>(lo)] : 0;
  t0 = t[static_cast<size_t>(lo)] - lo * step;
  for (int64_t k = lo; k < hi; ++k)
    if (t[static_cast<size_t>(k)] != t0 + k * step) return false;
  return true;
}

std::string tableName(const std::string& fn, size_t seg, size_t dim) {
  return fn + "_s" + std::to_string(seg) + "d" + std::to_string(dim);
}

// How dim d of segment g reads its source: affine, or through its table
// (segmentPrelude's), read by the local type tableReader(seg, d).
bool readsTable(const Segment& g, size_t d) {
  int64_t t0 = 0, step = 0;
  return !g.allFill && !affine(g.inOffset[d], g.validLo[d], g.validHi[d], t0, step);
}
std::string tableReader(size_t seg, size_t d) { return "Table" + std::to_string(seg) + "_" + std::to_string(d); }

std::string segmentPrelude(const std::vector<Segment>& segs, const std::string& fn, const std::string& type) {
  std::string s;
  for (size_t i = 0; i < segs.size(); ++i)
    for (size_t d = 0; d < segs[i].ext.size(); ++d)
      if (readsTable(segs[i], d)) s += cudaIntTable(type, tableName(fn, i, d), segs[i].inOffset[d]);
  return s;
}

// Segment `seg` as copy.cuh's RammerCopySegment.
std::string segmentType(const Segment& g, int64_t total, size_t seg) {
  std::string dims;
  bool guarded = false;
  int index = 0;
  for (size_t d = g.ext.size(); d-- > 0;) {  // innermost first; a unit dim reads offset 0
    if (g.ext[d] == 1) continue;
    int64_t t0 = 0, step = 0;  // an all-fill segment reads nothing: <0, 0>
    const bool table = !g.allFill && !affine(g.inOffset[d], g.validLo[d], g.validHi[d], t0, step);
    const std::string source = table ? "RammerCopyTable<" + tableReader(seg, d) + ">"
                                     : "RammerCopyAffine<" + llArg(t0) + ", " + llArg(step) + ">";
    guarded = guarded || (!g.allFill && (g.validLo[d] > 0 || g.validHi[d] < g.ext[d]));
    dims += ", RammerCopyDim<" + std::to_string(index++) + ", " + llArg(g.ext[d]) + ", " + llArg(g.outStride[d]) +
            ", " + llArg(g.validLo[d]) + ", " + llArg(g.validHi[d]) + ", " + source + ">";
  }
  int32_t fill = 0;  // the fill word's bits
  std::memcpy(&fill, &g.fill, sizeof fill);
  const char* mode = g.allFill ? "RAMMER_COPY_FILL" : guarded ? "RAMMER_COPY_GUARDED" : "RAMMER_COPY_READ";
  return "RammerCopySegment<" + llArg(g.start) + ", " + llArg(g.size()) + ", " +
         boolArg(g.start == 0 && g.size() == total) + ", " + mode + ", " + std::to_string(fill) + ", " +
         llArg(g.inBase) + ", " + llArg(g.outBase) + dims + ">";
}

// Where elements [begin, end) of the range land: element e of a segment
// goes to output slot outSlot at outBase + sum of its coordinates times
// outStride.
void segmentWritten(const std::vector<Segment>& segs, int64_t begin, int64_t end, std::vector<WrittenRun>& runs) {
  std::vector<int64_t> c;
  for (const Segment& g : segs) {
    const int64_t lo = std::max(begin, g.start), hi = std::min(end, g.start + g.size());
    if (lo >= hi) continue;
    c.assign(g.ext.size(), 0);
    for (int64_t e = lo; e < hi; ++e) {
      decompose(e - g.start, g.ext, c);
      int64_t dst = g.outBase;
      for (size_t d = 0; d < c.size(); ++d) dst += c[d] * g.outStride[d];
      appendWritten(runs, g.outSlot, dst);
    }
  }
}

}  // namespace

std::vector<ir::Tensor> copySourceMaps(const NodeInfo& info) {
  double fill = 0;
  return sourceMaps(info, fill);
}

const std::vector<std::string>& copyOpTypes() {
  static const std::vector<std::string> types = {"Concat", "Split",  "Slice", "Transpose",    "Gather",
                                                 "Pad",    "Expand", "Tile",  "DepthToSpace", "SpaceToDepth",
                                                 "GatherElements"};
  return types;
}

std::vector<RKernel> copyKernels(const NodeInfo& info) {
  // Indices known only at run time (token ids): no map to bake.
  if (info.numInputs() > 1 && info.inPresent[1] && !info.constant(1)) {
    if (info.node->opType == "Gather") return runtimeGatherKernels(info);
    if (info.node->opType == "GatherElements") return runtimeGatherElementsKernels(info);
  }
  auto segs = std::make_shared<std::vector<Segment>>(info.node->opType == "Concat" ? concatSegments(info)
                                                                                    : mappedSegments(info));
  int64_t total = 0, maxIndex = 0;
  for (Segment& s : *segs) {
    s.start = total;
    total += s.size();
  }
  for (const ir::Shape& sh : info.inShapes) maxIndex = std::max(maxIndex, ir::numElements(sh));
  for (const ir::Shape& sh : info.outShapes) maxIndex = std::max(maxIndex, ir::numElements(sh));
  if (total == 0) throw ops::OpError("has no output elements to copy");
  ElementKernelSpec spec;
  spec.family = "copy";
  spec.total = total;
  spec.bytes = 8.0 * static_cast<double>(total);
  const std::string tableType = indexType(maxIndex + total);
  spec.prelude = [segs, tableType](const std::string& fn) { return segmentPrelude(*segs, fn, tableType); };
  // Each segment a template argument of copy.cuh's rammer_copy, with the
  // input it reads and the output it writes.
  spec.library = kCopy;
  spec.templateName = "rammer_copy";
  std::vector<std::string> ins, outs;
  for (const Segment& s : *segs) {
    ins.push_back("in" + std::to_string(s.inSlot));
    outs.push_back("out" + std::to_string(s.outSlot));
  }
  spec.args = [ins, outs](const std::string&) {
    std::vector<std::string> args = {"rtask_id", "tid", "smem"};
    args.insert(args.end(), ins.begin(), ins.end());
    args.insert(args.end(), outs.begin(), outs.end());
    return args;
  };
  for (size_t i = 0; i < segs->size(); ++i) spec.templateArgs.push_back(segmentType((*segs)[i], total, i));
  spec.locals = [segs, tableType](const std::string& fn) {
    std::string locals;
    for (size_t i = 0; i < segs->size(); ++i)
      for (size_t d = 0; d < (*segs)[i].ext.size(); ++d)
        if (readsTable((*segs)[i], d))
          locals += cudaTableReader(tableReader(i, d), tableName(fn, i, d), tableType);
    return locals;
  };
  spec.maxIndex = maxIndex;
  spec.written = [segs](int64_t begin, int64_t end, std::vector<WrittenRun>& runs) {
    segmentWritten(*segs, begin, end, runs);
  };
  // Words move whatever their type; Concat's inputs may be integer constants.
  spec.constantsAsWords.assign(info.node->opType == "Concat" ? info.numInputs() : 1, true);
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

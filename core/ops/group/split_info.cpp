#include "core/ops/group/split_info.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/ops/op_registry.h"

namespace rammer::ops {

Span AxisMap::inputSpan(Span out, int64_t inSize) const {
  if (kind == Kind::Whole) return {0, inSize};
  if (out.hi <= out.lo) return {0, 0};
  Span in;
  if (kind == Kind::Window) {
    in = {out.lo * stride - offset, (out.hi - 1) * stride - offset + extent};
  } else {
    in = {out.lo / outBlock * inBlock, ((out.hi - 1) / outBlock + 1) * inBlock};
  }
  in.lo = std::clamp<int64_t>(in.lo, 0, inSize);
  in.hi = std::clamp<int64_t>(in.hi, in.lo, inSize);
  return in;
}

double MemberGeometry::flopsPerElement() const {
  switch (kind) {
    case MemberKind::Conv: {
      const int64_t cinPerGroup = inputs.at(0).at(1) / groups;
      return 2.0 * static_cast<double>(cinPerGroup * window.kernelSize()) + (hasBias ? 1 : 0);
    }
    case MemberKind::MaxPool:
    case MemberKind::AveragePool:
      return static_cast<double>(window.kernelSize());
    case MemberKind::Elementwise:
      return expr->numOperations();
  }
  return 0;
}

namespace {

bool allFloat(const OpContext& ctx, std::string& why) {
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (ctx.has(i) && ctx.dtype(i) != ir::DType::Float32) {
      why = "input " + std::to_string(i) + " is not float32";
      return false;
    }
  return true;
}

AxisMap same(int dim) {
  AxisMap m;
  m.kind = AxisMap::Kind::Window;
  m.inputDim = dim;
  return m;
}

// GraphTurbo reads a growing group's members again at every step of its
// growth and of its instance search: the same few expressions, each up to
// 64 operators long, parsed again and again (most of a 10,000-node chain's
// planning time). A small per-thread cache, emptied when it fills.
std::shared_ptr<const FusedExpr> parsedExpr(const std::string& text) {
  thread_local std::unordered_map<std::string, std::shared_ptr<const FusedExpr>> cache;
  if (auto it = cache.find(text); it != cache.end()) return it->second;
  if (cache.size() >= 256) cache.clear();
  auto expr = std::make_shared<const FusedExpr>(FusedExpr::parse(text));
  cache.emplace(text, expr);
  return expr;
}

}  // namespace

std::optional<MemberGeometry> readMember(const ir::Node& node, const OpContext& ctx, const ir::Shape& output,
                                         std::string& why) {
  MemberGeometry m;
  m.output = output;
  for (size_t i = 0; i < ctx.numInputs(); ++i) m.inputs.push_back(ctx.has(i) ? ctx.shape(i) : ir::Shape{});
  if (!ir::TensorType{ir::DType::Float32, output}.fullyKnown()) {
    why = "its output shape is not known";
    return std::nullopt;
  }
  for (const ir::Shape& s : m.inputs)
    if (!ir::TensorType{ir::DType::Float32, s}.fullyKnown()) {
      why = "an input shape is not known";
      return std::nullopt;
    }
  if (!allFloat(ctx, why)) return std::nullopt;
  const bool onnxDomain = node.domain.empty() || node.domain == "ai.onnx";
  try {
    if (onnxDomain && node.opType == "Conv") {
      if (ctx.numInputs() < 2 || m.inputs[0].size() < 3 || m.inputs[0].size() > 5) {
        why = "Conv needs an input of rank 3 to 5 and a weight";
        return std::nullopt;
      }
      m.kind = MemberKind::Conv;
      m.spatial = m.inputs[0].size() - 2;
      const ir::Shape& w = m.inputs[1];
      const WindowAttrs a = readWindowAttrs(ctx, m.spatial, std::vector<int64_t>(w.begin() + 2, w.end()));
      m.window = slidingWindow3(ctx, a, std::vector<int64_t>(m.inputs[0].begin() + 2, m.inputs[0].end()));
      m.groups = ctx.attrs().getInt("group", 1);
      m.hasBias = ctx.has(2);
      if (m.groups < 1 || m.inputs[0][1] % m.groups != 0 || output[1] % m.groups != 0) {
        why = "Conv's group does not divide its channels";
        return std::nullopt;
      }
      return m;
    }
    if (onnxDomain && (node.opType == "MaxPool" || node.opType == "AveragePool")) {
      if (node.outputs.size() > 1 && node.outputs[1] != ir::kNone) {
        why = "MaxPool's indices output is used";
        return std::nullopt;
      }
      if (m.inputs[0].size() < 3 || m.inputs[0].size() > 5) {
        why = node.opType + " needs an input of rank 3 to 5";
        return std::nullopt;
      }
      m.kind = node.opType == "MaxPool" ? MemberKind::MaxPool : MemberKind::AveragePool;
      m.spatial = m.inputs[0].size() - 2;
      const WindowAttrs a = readWindowAttrs(ctx, m.spatial);
      m.window = slidingWindow3(ctx, a, std::vector<int64_t>(m.inputs[0].begin() + 2, m.inputs[0].end()));
      m.countIncludePad = ctx.attrs().getInt("count_include_pad", 0) != 0;
      if (m.kind == MemberKind::AveragePool && m.countIncludePad && a.ceilMode) {
        why = "AveragePool with ceil_mode and count_include_pad";
        return std::nullopt;
      }
      return m;
    }
    if (node.domain == kRammerDomain && node.opType == "FusedElementwise") {
      m.kind = MemberKind::Elementwise;
      m.expr = parsedExpr(ctx.attrs().getString("expr", ""));
      for (const ir::Shape& s : m.inputs)
        if (s.size() > output.size()) {
          why = "an input has a higher rank than the output";
          return std::nullopt;
        }
      return m;
    }
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
  why = "fused groups do not implement " + (onnxDomain ? node.opType : node.domain + "::" + node.opType);
  return std::nullopt;
}

std::optional<std::vector<AxisMap>> splitAlong(const MemberGeometry& m, int dim, std::string& why) {
  const int rank = static_cast<int>(m.output.size());
  if (dim < 0 || dim >= rank) {
    why = "no dim " + std::to_string(dim);
    return std::nullopt;
  }
  std::vector<AxisMap> maps(m.inputs.size());
  switch (m.kind) {
    case MemberKind::Elementwise:
      for (size_t k = 0; k < m.inputs.size(); ++k) {
        const int lead = rank - static_cast<int>(m.inputs[k].size());
        const int e = dim - lead;
        // A broadcast operand is read whole: its piece is all of it.
        if (e >= 0 && m.inputs[k][static_cast<size_t>(e)] == m.output[static_cast<size_t>(dim)]) maps[k] = same(e);
      }
      return maps;
    case MemberKind::Conv:
    case MemberKind::MaxPool:
    case MemberKind::AveragePool: {
      const bool conv = m.kind == MemberKind::Conv;
      if (dim == 0) {
        maps[0] = same(0);
      } else if (dim == 1) {
        if (conv) {
          // A channel piece reads every input channel of its groups, and its own filters.
          if (m.groups > 1) {
            maps[0].kind = AxisMap::Kind::Blocks;
            maps[0].inputDim = 1;
            maps[0].outBlock = m.output[1] / m.groups;
            maps[0].inBlock = m.inputs[0][1] / m.groups;
          }
          maps[1] = same(0);
          if (m.hasBias) maps[2] = same(0);
        } else {
          maps[0] = same(1);
        }
      } else {
        const size_t w = 3 - m.spatial + static_cast<size_t>(dim - 2);
        AxisMap a;
        a.kind = AxisMap::Kind::Window;
        a.inputDim = dim;
        a.stride = m.window.stride[w];
        a.offset = m.window.padBegin[w];
        a.extent = (m.window.kernel[w] - 1) * m.window.dilation[w] + 1;
        maps[0] = a;
      }
      return maps;
    }
  }
  why = "unknown member kind";
  return std::nullopt;
}

}  // namespace rammer::ops

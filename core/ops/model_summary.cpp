#include "core/ops/model_summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/ops/type_inference.h"

namespace rammer::ops {

namespace {

ValueSummary describe(const ir::Value& v) { return ValueSummary{v.name, v.type, v.dimParams}; }

std::vector<std::pair<std::string, int64_t>> byCountThenName(const std::map<std::string, int64_t>& counts) {
  std::vector<std::pair<std::string, int64_t>> out(counts.begin(), counts.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

// FLOPs of one node, or nullopt when they cannot be counted (unknown output
// shapes would make the op's formula meaningless).
std::optional<double> nodeFlops(const ir::Graph& graph, const ir::Node& node, const OpDef& def) {
  if (!def.flops) return 0.0;
  std::vector<ir::TensorType> outTypes;
  for (ir::ValueId out : node.outputs) {
    if (out == ir::kNone) {
      outTypes.emplace_back();
      continue;
    }
    const ir::TensorType& t = graph.value(out).type;
    if (!t.fullyKnown()) return std::nullopt;
    outTypes.push_back(t);
  }
  for (ir::ValueId in : node.inputs)
    if (in != ir::kNone && !graph.value(in).type.fullyKnown()) return std::nullopt;
  try {
    OpContext ctx = makeContext(graph, node, {});
    double f = def.flops(ctx, outTypes);
    if (!std::isfinite(f) || f < 0) return std::nullopt;
    return f;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Formats `v` scaled to the largest unit it reaches, with three significant
// digits ("1.82 G", "512 ").
std::string scaled(double v, const char* unit) {
  static constexpr std::array<const char*, 6> kPrefixes = {"", "K", "M", "G", "T", "P"};
  size_t p = 0;
  double x = v;
  // 999.96 K would print as "1000 K": step up once more when rounding reaches 1000.
  while (std::fabs(x) >= 999.5 && p + 1 < kPrefixes.size()) {
    x /= 1000.0;
    ++p;
  }
  const double ax = std::fabs(x);
  const int decimals = p == 0 || ax >= 99.95 ? 0 : ax >= 9.995 ? 1 : 2;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s%s", decimals, x, kPrefixes[p], unit);
  std::string s = buf;
  if (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

ModelSummary summarize(const ir::Graph& graph, const OpRegistry& registry) {
  ModelSummary s;
  s.name = graph.name;
  s.opset = graph.opsetVersion;
  for (ir::ValueId v : graph.inputs()) s.inputs.push_back(describe(graph.value(v)));
  for (ir::ValueId v : graph.outputs()) s.outputs.push_back(describe(graph.value(v)));

  std::map<std::string, int64_t> ops;
  std::map<std::string, int64_t> categories;
  for (size_t i = 0; i < graph.numNodeSlots(); ++i) {
    const ir::Node& node = graph.node(static_cast<ir::NodeId>(i));
    if (node.removed) continue;
    ++s.nodeCount;
    std::string type = node.domain.empty() || node.domain == "ai.onnx" ? node.opType : node.domain + "." + node.opType;
    ++ops[type];
    const OpDef* def = registry.find(node.domain, node.opType);
    ++categories[def ? std::string(categoryName(def->category)) : "unsupported"];
    std::optional<double> f = def ? nodeFlops(graph, node, *def) : std::nullopt;
    if (f)
      s.flops += *f;
    else
      ++s.flopsUnknownNodes;
  }
  s.opHistogram = byCountThenName(ops);
  s.categoryCounts = byCountThenName(categories);

  for (size_t i = 0; i < graph.numValues(); ++i) {
    const ir::Value& v = graph.value(static_cast<ir::ValueId>(i));
    if (!v.constant || v.producer != ir::kNone || v.consumers.empty()) continue;
    s.parameterCount += v.constant->numel();
    s.parameterBytes += static_cast<int64_t>(v.constant->byteSize());
  }
  return s;
}

std::string formatFlops(double flops) { return scaled(flops, "FLOP"); }
std::string formatBytes(int64_t bytes) { return scaled(static_cast<double>(bytes), "B"); }
std::string formatCount(int64_t count) { return scaled(static_cast<double>(count), ""); }

}  // namespace rammer::ops

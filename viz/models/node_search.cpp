#include "viz/models/node_search.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "viz/models/graph_display.h"

namespace rammer::viz {

namespace {

enum class Field { Any, Name, Op, Shape };

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool contains(std::string_view haystack, const std::string& needleLower) {
  return lower(haystack).find(needleLower) != std::string::npos;
}

struct ShapePattern {
  std::vector<int64_t> dims;
  bool exact = false;  // brackets: the whole shape
};

// Dims when the text is made only of numbers and shape separators; nothing
// otherwise (so "conv1" is a name, not a shape).
std::optional<ShapePattern> parseShape(std::string_view text) {
  ShapePattern p;
  std::string digits;
  auto flush = [&]() -> bool {
    if (digits.empty()) return true;
    if (digits.size() > 18) return false;  // would overflow int64
    p.dims.push_back(std::stoll(digits));
    digits.clear();
    return true;
  };
  const std::string_view times = "\u00D7";
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
      ++i;
      continue;
    }
    if (!flush()) return std::nullopt;
    if (text.substr(i, times.size()) == times) {
      i += times.size();
    } else if (c == 'x' || c == 'X' || c == ',' || c == ' ') {
      ++i;
    } else if (c == '[' || c == ']' || c == '(' || c == ')') {
      p.exact = true;
      ++i;
    } else {
      return std::nullopt;
    }
  }
  if (!flush() || p.dims.empty()) return std::nullopt;
  return p;
}

bool shapeMatches(const ir::Shape& shape, const ShapePattern& p) {
  if (p.exact) return shape == p.dims;
  if (p.dims.size() > shape.size()) return false;
  return std::search(shape.begin(), shape.end(), p.dims.begin(), p.dims.end()) != shape.end();
}

bool nodeShapeMatches(const ir::Graph& g, const ir::Node& n, const ShapePattern& p) {
  auto match = [&](ir::ValueId v) {
    return v != ir::kNone && g.value(v).type.rankKnown && shapeMatches(g.value(v).type.shape, p);
  };
  return std::any_of(n.inputs.begin(), n.inputs.end(), match) ||
         std::any_of(n.outputs.begin(), n.outputs.end(), match);
}

// The op types a node stands for: its own, plus the fused members' types.
bool opMatches(const ir::Node& n, const std::string& needle) {
  if (contains(n.opType, needle)) return true;
  if (n.opType != "FusedElementwise") return false;
  const ir::AttrValue* members = n.attrs.find("fused_nodes");
  const auto* list = members ? std::get_if<std::vector<std::string>>(members) : nullptr;
  if (!list) return false;
  for (const std::string& m : *list) {
    // "OpType:name"
    const std::string_view type = std::string_view(m).substr(0, m.find(':'));
    if (contains(type, needle)) return true;
  }
  return false;
}

}  // namespace

std::vector<ir::NodeId> findNodes(const ir::Graph& graph, std::string_view query) {
  std::vector<ir::NodeId> found;
  std::string_view q = trim(query);
  Field field = Field::Any;
  for (auto [prefix, f] : {std::pair{"name:", Field::Name}, {"op:", Field::Op}, {"shape:", Field::Shape}}) {
    const std::string_view p = prefix;
    if (q.size() >= p.size() && lower(q.substr(0, p.size())) == p) {
      field = f;
      q = trim(q.substr(p.size()));
      break;
    }
  }
  if (q.empty()) return found;
  const std::string needle = lower(q);
  const std::optional<ShapePattern> shape = parseShape(q);
  if (field == Field::Shape && !shape) return found;

  for (ir::NodeId id : displayOrder(graph)) {
    const ir::Node& n = graph.node(id);
    const bool byName = (field == Field::Any || field == Field::Name) && contains(n.name, needle);
    const bool byOp = (field == Field::Any || field == Field::Op) && opMatches(n, needle);
    const bool byShape = (field == Field::Any || field == Field::Shape) && shape && nodeShapeMatches(graph, n, *shape);
    if (byName || byOp || byShape) found.push_back(id);
  }
  return found;
}

}  // namespace rammer::viz

#include "viz/models/layer_folding.h"

#include <cctype>
#include <map>

#include "viz/models/graph_display.h"

namespace rammer::viz {

namespace {

bool isSeparator(char c) { return c == '/' || c == '.'; }

}  // namespace

LayerScope layerScopeOf(const std::string& name) {
  // Segments end at '/' or '.'; the one after the last separator is the
  // op's own name ("MatMul_2"), whose number is not a scope.
  const size_t last = name.find_last_of("/.");
  if (last == std::string::npos) return {};
  size_t begin = 0;
  for (size_t end = 0; end <= last; ++end) {
    if (!isSeparator(name[end])) continue;
    if (end > begin && std::isdigit(static_cast<unsigned char>(name[end - 1]))) {
      size_t digits = end;
      while (digits > begin && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
      return {name.substr(0, end), name.substr(0, digits) + "#"};
    }
    begin = end + 1;
  }
  return {};
}

std::vector<RepeatedLayer> findRepeatedLayers(const ir::Graph& graph) {
  std::vector<RepeatedLayer> layers;
  std::map<std::string, size_t> byPrefix;
  for (ir::NodeId id : displayOrder(graph)) {
    LayerScope scope = layerScopeOf(graph.node(id).name);
    if (scope.prefix.empty()) continue;
    auto [it, added] = byPrefix.emplace(scope.prefix, layers.size());
    if (added) layers.push_back({std::move(scope.prefix), std::move(scope.stem), {}});
    layers[it->second].nodes.push_back(id);
  }
  // A stem is repeated when two or more of its layers hold two or more ops.
  std::map<std::string, int> sizable;
  for (const RepeatedLayer& l : layers)
    if (l.nodes.size() >= 2) ++sizable[l.stem];
  std::vector<RepeatedLayer> out;
  for (RepeatedLayer& l : layers)
    if (l.nodes.size() >= 2 && sizable[l.stem] >= 2) out.push_back(std::move(l));
  return out;
}

}  // namespace rammer::viz

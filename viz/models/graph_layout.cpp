#include "viz/models/graph_layout.h"

#include <gvc.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>

namespace rammer::viz {

namespace {

constexpr double kPointsPerInch = 72.0;
constexpr double kArrowLength = 7.0;  // dot's default arrow, in points

// Graphviz keeps process-wide state that is not thread-safe: the error
// level/handler and message buffer in cgraph, the dot layout's statics
// (e.g. the `State`/`Ndim`/`EdgeLabelsDone` globals), and it switches
// LC_NUMERIC to "C" around a layout. Two layouts at once (say, the graph
// view relayouting while an export lays out a copy) would corrupt each
// other, so every call into Graphviz holds this lock.
std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

// Locale-independent decimal text: Graphviz parses attributes with strtod
// under the "C" locale it sets during layout.
std::string number(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 4);
  return ec == std::errc() ? std::string(buf, end) : std::string("0");
}

void setAttr(void* obj, const char* name, const std::string& value) {
  agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

// The process's one Graphviz context, made on first use (under the lock)
// and kept: making one per layout re-reads the plugin configuration, and
// Graphviz 2.43 leaks part of it every time.
GVC_t* sharedContext() {
  static GVC_t* const gvc = gvContext();
  return gvc;
}

// Owns one graph and its layout; frees them whatever path leaves the
// function.
class GraphvizSession {
 public:
  GraphvizSession() : gvc_(sharedContext()) {
    Agdesc_t desc = Agdirected;
    graph_ = agopen(const_cast<char*>("rammer"), desc, nullptr);
  }
  ~GraphvizSession() {
    if (laidOut_) gvFreeLayout(gvc_, graph_);
    if (graph_) agclose(graph_);
  }
  GraphvizSession(const GraphvizSession&) = delete;
  GraphvizSession& operator=(const GraphvizSession&) = delete;

  bool ok() const { return gvc_ && graph_; }
  Agraph_t* graph() const { return graph_; }
  bool layout() {
    laidOut_ = gvLayout(gvc_, graph_, "dot") == 0;
    return laidOut_;
  }

 private:
  GVC_t* gvc_ = nullptr;
  Agraph_t* graph_ = nullptr;
  bool laidOut_ = false;
};

// Restores cgraph's error reporting level on every exit path.
class QuietErrors {
 public:
  // AGMAX keeps messages off stderr; aglasterr() still returns the last.
  QuietErrors() : previous_(agseterr(AGMAX)) { agreseterrors(); }
  ~QuietErrors() { agseterr(previous_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  agerrlevel_t previous_;
};

std::string lastGraphvizError() {
  const char* msg = aglasterr();
  return msg && *msg ? std::string(msg) : std::string("no message");
}

ir::Diagnostic checkRequest(const LayoutRequest& r) {
  const int n = static_cast<int>(r.nodes.size());
  for (int i = 0; i < n; ++i) {
    const LayoutSize& s = r.nodes[static_cast<size_t>(i)];
    if (!(std::isfinite(s.width) && std::isfinite(s.height) && s.width > 0 && s.height > 0))
      return ir::makeError("graph layout: node " + std::to_string(i) + " has size " + number(s.width) + " x " +
                           number(s.height) + "; sizes must be finite and positive");
  }
  for (size_t i = 0; i < r.edges.size(); ++i) {
    auto [a, b] = r.edges[i];
    if (a < 0 || a >= n || b < 0 || b >= n)
      return ir::makeError("graph layout: edge " + std::to_string(i) + " joins node " + std::to_string(a) +
                           " to node " + std::to_string(b) + " but there are " + std::to_string(n) + " nodes");
  }
  if (!(std::isfinite(r.rankSep) && std::isfinite(r.nodeSep) && r.rankSep >= 0 && r.nodeSep >= 0))
    return ir::makeError("graph layout: rank and node separations must be finite and not negative");
  return {};
}

// Longest-path rank of every node (0 for sources); nodes on a cycle keep
// rank -1 (dot breaks cycles itself; such edges are always routed).
std::vector<int> longestPathRanks(const LayoutRequest& r) {
  const size_t n = r.nodes.size();
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indeg(n, 0), rank(n, -1);
  for (auto [a, b] : r.edges) {
    succ[static_cast<size_t>(a)].push_back(b);
    ++indeg[static_cast<size_t>(b)];
  }
  std::vector<int> ready;
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) {
      ready.push_back(static_cast<int>(i));
      rank[i] = 0;
    }
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    for (int w : succ[static_cast<size_t>(v)]) {
      rank[static_cast<size_t>(w)] = std::max(rank[static_cast<size_t>(w)], rank[static_cast<size_t>(v)] + 1);
      if (--indeg[static_cast<size_t>(w)] == 0) ready.push_back(w);
    }
  }
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] > 0) rank[i] = -1;
  return rank;
}

// Which edges dot routes (see LayoutRequest::maxRoutedSpan).
std::vector<bool> routedEdges(const LayoutRequest& r) {
  std::vector<bool> routed(r.edges.size(), true);
  if (r.maxRoutedSpan <= 0 || r.nodes.size() <= r.directEdgeMinNodes) return routed;
  const std::vector<int> rank = longestPathRanks(r);
  for (size_t e = 0; e < r.edges.size(); ++e) {
    const int a = rank[static_cast<size_t>(r.edges[e].first)], b = rank[static_cast<size_t>(r.edges[e].second)];
    if (a >= 0 && b >= 0 && b - a > r.maxRoutedSpan) routed[e] = false;
  }
  return routed;
}

// A curve leaving the producer's bottom and entering the consumer's top.
EdgeRoute directRoute(const NodePlacement& from, const NodePlacement& to) {
  EdgeRoute r;
  r.direct = true;
  r.hasArrow = true;
  const LayoutPoint start{from.x, from.y + from.height / 2};
  r.arrowTip = {to.x, to.y - to.height / 2};
  const bool down = r.arrowTip.y > start.y;
  const LayoutPoint end{r.arrowTip.x, r.arrowTip.y + (down ? -kArrowLength : kArrowLength)};
  const double bend = std::min(80.0, std::fabs(end.y - start.y) / 3 + 20);
  r.points = {start, {start.x, start.y + bend}, {end.x, end.y - (down ? bend : -bend)}, end};
  return r;
}

}  // namespace

ir::Result<GraphLayout> computeGraphLayout(const LayoutRequest& request) {
  if (ir::Diagnostic d = checkRequest(request); !d.message.empty()) return d;
  GraphLayout out;
  if (request.nodes.empty()) return out;

  std::unique_lock<std::mutex> lock = lockGraphviz();
  QuietErrors quiet;
  GraphvizSession s;
  if (!s.ok()) return ir::makeError("graph layout: Graphviz could not start: " + lastGraphvizError());
  Agraph_t* g = s.graph();
  setAttr(g, "rankdir", "TB");
  setAttr(g, "ranksep", number(request.rankSep / kPointsPerInch));
  setAttr(g, "nodesep", number(request.nodeSep / kPointsPerInch));
  // Boxes are drawn by the caller: no text for dot to measure, fixed sizes.
  agattr(g, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
  agattr(g, AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
  agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
  agattr(g, AGNODE, const_cast<char*>("width"), const_cast<char*>("1"));
  agattr(g, AGNODE, const_cast<char*>("height"), const_cast<char*>("1"));

  std::vector<Agnode_t*> nodes;
  nodes.reserve(request.nodes.size());
  for (size_t i = 0; i < request.nodes.size(); ++i) {
    // Built in two steps: GCC 12 warns falsely (-Wrestrict) on "n" + to_string.
    std::string name = "n";
    name += std::to_string(i);
    Agnode_t* n = agnode(g, name.data(), 1);
    if (!n) return ir::makeError("graph layout: Graphviz refused node " + std::to_string(i) + ": " + lastGraphvizError());
    setAttr(n, "width", number(request.nodes[i].width / kPointsPerInch));
    setAttr(n, "height", number(request.nodes[i].height / kPointsPerInch));
    nodes.push_back(n);
  }
  const std::vector<bool> routed = routedEdges(request);
  std::vector<Agedge_t*> edges(request.edges.size(), nullptr);
  for (size_t i = 0; i < request.edges.size(); ++i) {
    if (!routed[i]) continue;
    // A distinct key per edge keeps parallel edges apart (two values from
    // one producer to one consumer are two arrows).
    std::string key = "e";
    key += std::to_string(i);
    auto [a, b] = request.edges[i];
    Agedge_t* e = agedge(g, nodes[static_cast<size_t>(a)], nodes[static_cast<size_t>(b)], key.data(), 1);
    if (!e) return ir::makeError("graph layout: Graphviz refused edge " + std::to_string(i) + ": " + lastGraphvizError());
    edges[i] = e;
  }

  if (!s.layout()) return ir::makeError("graph layout: dot failed: " + lastGraphvizError());

  const boxf bb = GD_bb(g);
  out.width = bb.UR.x - bb.LL.x;
  out.height = bb.UR.y - bb.LL.y;
  // Graphviz's y axis points up; flip into the drawing's top-left frame.
  auto toView = [&](pointf p) { return LayoutPoint{p.x - bb.LL.x, bb.UR.y - p.y}; };
  out.nodes.reserve(nodes.size());
  for (Agnode_t* n : nodes) {
    const LayoutPoint c = toView(ND_coord(n));
    out.nodes.push_back({c.x, c.y, ND_width(n) * kPointsPerInch, ND_height(n) * kPointsPerInch});
  }
  out.edges.reserve(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    Agedge_t* e = edges[i];
    if (!e) {
      out.edges.push_back(directRoute(out.nodes[static_cast<size_t>(request.edges[i].first)],
                                      out.nodes[static_cast<size_t>(request.edges[i].second)]));
      continue;
    }
    EdgeRoute route;
    if (const splines* spl = ED_spl(e)) {
      for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        // Later pieces start where the previous ended: skip the repeat.
        for (int k = route.points.empty() ? 0 : 1; k < bz.size; ++k) route.points.push_back(toView(bz.list[k]));
        if (bz.eflag) {
          route.hasArrow = true;
          route.arrowTip = toView(bz.ep);
        }
      }
    }
    out.edges.push_back(std::move(route));
  }
  return out;
}

std::unique_lock<std::mutex> lockGraphviz() { return std::unique_lock<std::mutex>(graphvizMutex()); }

LayoutRequest makeLayoutRequest(const GraphDisplay& display,
                                const std::function<LayoutSize(const DisplayNode&)>& sizeOf) {
  LayoutRequest r;
  r.nodes.reserve(display.nodes.size());
  for (const DisplayNode& n : display.nodes) r.nodes.push_back(sizeOf(n));
  r.edges.reserve(display.edges.size());
  for (const DisplayEdge& e : display.edges) r.edges.emplace_back(e.from, e.to);
  return r;
}

}  // namespace rammer::viz

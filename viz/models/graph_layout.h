#pragma once
// Graphviz `dot` layout of the graph view's boxes: the caller gives each box
// its size (the widget measures its text) and the edges between boxes; dot
// ranks them top-down and routes every edge as a cubic Bézier spline.
// Coordinates are in points with y growing downwards (Qt's convention), the
// origin at the drawing's top-left corner.
//
// computeGraphLayout is a pure function that may run on any thread (the GUI
// runs it off the UI thread); calls are serialised inside (see the .cpp).
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "core/ir/diagnostic.h"
#include "viz/models/graph_display.h"

namespace rammer::viz {

struct LayoutSize {
  double width = 0;  // points
  double height = 0;
};

struct LayoutRequest {
  std::vector<LayoutSize> nodes;
  std::vector<std::pair<int, int>> edges;  // (from, to) indices into nodes
  double rankSep = 30;  // vertical gap between ranks: room for shape labels
  double nodeSep = 18;  // horizontal gap between boxes of a rank
  // Big graphs: dot turns an edge crossing k ranks into k-1 virtual nodes
  // it must order and place; the few hundred long edges of an unrolled
  // LSTM (every step's output into one Concat) make that minutes. With more
  // than `directEdgeMinNodes` boxes, an edge spanning more than
  // `maxRoutedSpan` ranks (longest-path ranks) is left out of dot's work
  // and drawn as a direct curve (EdgeRoute::direct). 0 routes every edge.
  int maxRoutedSpan = 8;
  size_t directEdgeMinNodes = 1000;
};

struct LayoutPoint {
  double x = 0;
  double y = 0;
};

struct NodePlacement {
  double x = 0;  // centre
  double y = 0;
  double width = 0;
  double height = 0;
};

struct EdgeRoute {
  // A cubic Bézier chain: start, then (control, control, end) per segment.
  std::vector<LayoutPoint> points;
  // Where the arrow head ends (on the target box's border); the spline
  // stops short of it by the arrow's length.
  bool hasArrow = false;
  LayoutPoint arrowTip;
  // Not routed by dot (see LayoutRequest::maxRoutedSpan): a plain curve
  // from the producer's bottom to the consumer's top that may cross boxes.
  bool direct = false;
};

struct GraphLayout {
  std::vector<NodePlacement> nodes;  // same order as LayoutRequest::nodes
  std::vector<EdgeRoute> edges;      // same order as LayoutRequest::edges
  double width = 0;                  // bounding box of the drawing
  double height = 0;
};

// An error naming the problem for an edge index out of range, a size that is
// not finite and positive, or a failure inside Graphviz.
ir::Result<GraphLayout> computeGraphLayout(const LayoutRequest& request);

// Graphviz is not thread-safe (process-wide state); anything else in the
// program that calls it (DOT/SVG export, say) must hold this lock too.
std::unique_lock<std::mutex> lockGraphviz();

// One layout node per display node (sizes from `sizeOf`), one layout edge per
// display edge.
LayoutRequest makeLayoutRequest(const GraphDisplay& display,
                                const std::function<LayoutSize(const DisplayNode&)>& sizeOf);

}  // namespace rammer::viz

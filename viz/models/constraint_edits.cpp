#include "viz/models/constraint_edits.h"

#include <algorithm>

namespace rammer::viz {

schedule::Constraints withKernelPinned(schedule::Constraints c, const std::string& node, const std::string& kernel) {
  if (kernel.empty())
    c.kernelFor.erase(node);
  else
    c.kernelFor[node] = kernel;
  return c;
}

schedule::Constraints withOpMoved(schedule::Constraints c, const std::string& node, int veu, int order) {
  std::erase_if(c.pins, [&](const schedule::TaskPin& p) { return p.node == node; });
  c.pins.push_back({node, -1, veu, order});
  return c;
}

schedule::Constraints withTaskMoved(schedule::Constraints c, const std::string& node, int64_t rtask, int veu,
                                    int order) {
  std::erase_if(c.pins, [&](const schedule::TaskPin& p) { return p.node == node && p.rtask == rtask; });
  c.pins.push_back({node, rtask, veu, order});
  return c;
}

schedule::Constraints withCutBefore(schedule::Constraints c, const std::string& node) {
  c.noCutBefore.erase(node);
  c.cutBefore.insert(node);
  return c;
}

schedule::Constraints withMergeBefore(schedule::Constraints c, const std::string& node) {
  c.cutBefore.erase(node);
  c.noCutBefore.insert(node);
  return c;
}

schedule::Constraints withShapePinned(schedule::Constraints c, const std::string& node, int veusPerSM) {
  if (veusPerSM <= 0)
    c.shapeFor.erase(node);
  else
    c.shapeFor[node] = veusPerSM;
  return c;
}

bool sameConstraints(const schedule::Constraints& a, const schedule::Constraints& b) {
  auto samePin = [](const schedule::TaskPin& x, const schedule::TaskPin& y) {
    return x.node == y.node && x.rtask == y.rtask && x.veu == y.veu && x.order == y.order;
  };
  return a.kernelFor == b.kernelFor && a.cutBefore == b.cutBefore && a.noCutBefore == b.noCutBefore &&
         a.shapeFor == b.shapeFor && std::equal(a.pins.begin(), a.pins.end(), b.pins.begin(), b.pins.end(), samePin);
}

}  // namespace rammer::viz

#include "core/kernels/kernel_library.h"

namespace rammer::kernels {

ir::Result<OperatorKernels> kernelsFor(const ir::Graph& graph, ir::NodeId node) {
  const ir::Node& n = graph.node(node);
  return ir::makeError("no rKernel implements " + n.opType + " yet", n.name);
}

std::vector<std::string> supportedOpTypes() { return {}; }

}  // namespace rammer::kernels

#include "core/runtime/cuda_graph.h"

namespace rammer::runtime {

ir::Result<CapturedGraph> captureGraph(const CudaDriver& d, cu::Stream stream,
                                       const std::function<ir::Result<bool>()>& enqueue) {
  if (!d.hasGraphs()) return ir::makeError("the CUDA driver has no graphs: missing " + d.graphsMissing);
  if (cu::Result r = d.graphs.cuStreamBeginCapture(stream, cu::kStreamCaptureModeThreadLocal); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuStreamBeginCapture"));
  const ir::Result<bool> enqueued = enqueue();
  CapturedGraph g;
  const cu::Result ended = d.graphs.cuStreamEndCapture(stream, &g.graph);
  if (!enqueued || ended != cu::kSuccess) {
    destroyGraph(d, g);
    if (!enqueued) return enqueued.errors();
    return ir::makeError(d.errorText(ended, "cuStreamEndCapture"));
  }
  if (cu::Result r = d.graphs.cuGraphInstantiate(&g.exec, g.graph, 0); r != cu::kSuccess) {
    g.exec = nullptr;
    destroyGraph(d, g);
    return ir::makeError(d.errorText(r, "cuGraphInstantiateWithFlags"));
  }
  return g;
}

void destroyGraph(const CudaDriver& d, CapturedGraph& g) {
  if (g.exec) d.graphs.cuGraphExecDestroy(g.exec);
  if (g.graph) d.graphs.cuGraphDestroy(g.graph);
  g = {};
}

}  // namespace rammer::runtime

#pragma once
// A CUDA graph captured from a stream and instantiated once, so that a run
// of many launches is replayed with one (LaunchMode::Graph). While a stream
// captures, what is issued on it is recorded, not run, and each kernel's
// parameters are copied by value: whatever a launch passes (the epoch
// among them) is fixed in the graph.
#include <functional>

#include "core/ir/diagnostic.h"
#include "core/runtime/cuda_driver.h"

namespace rammer::runtime {

struct CapturedGraph {
  cu::Graph graph = nullptr;
  cu::GraphExec exec = nullptr;
};

// Captures what `enqueue` issues on `stream` and instantiates it. The
// capture is ended whatever `enqueue` returns (a stream left capturing
// refuses all later work), and on any error what was made is destroyed.
// The driver must have the graph entry points (CudaDriver::hasGraphs).
ir::Result<CapturedGraph> captureGraph(const CudaDriver& d, cu::Stream stream,
                                       const std::function<ir::Result<bool>()>& enqueue);

// Destroys the executable graph and the graph (null handles are skipped).
void destroyGraph(const CudaDriver& d, CapturedGraph& g);

}  // namespace rammer::runtime

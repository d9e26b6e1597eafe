#pragma once
// CumSum and ScatterND chained (a reversed inclusive sum, a scatter of update
// rows with negative and repeated indices, an exclusive sum): the graph the
// codegen and host-run tests give the scan and scatter rKernels.
#include <stdexcept>

#include "tests/support/graph_builder.h"

namespace rammer::testing {

inline ir::Graph scatterScanGraph() {
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {4, 6, 8});
  const ir::ValueId updates = b.input("updates", {4, 8});
  const ir::ValueId rev = b.op("CumSum", "cumsum_rev", {x, b.constant("axis1", ir::Tensor::scalar<int64_t>(1))},
                               attrs({{"reverse", int64_t{1}}}));
  const ir::ValueId idx = b.constant("idx", ir::Tensor::fromVector<int64_t>({4, 2}, {1, 2, 3, -1, 0, 0, 1, 2}));
  const ir::ValueId scattered = b.op("ScatterND", "scatter", {rev, idx, updates});
  b.output(b.op("CumSum", "cumsum_excl", {scattered, b.constant("axis2", ir::Tensor::scalar<int64_t>(-1))},
                attrs({{"exclusive", int64_t{1}}})));
  if (!b.infer().empty()) throw std::runtime_error("the scatter/scan graph does not infer");
  return b.graph();
}

}  // namespace rammer::testing

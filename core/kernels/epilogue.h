#pragma once
// The element-wise epilogue of a FusedConv, FusedGemm or FusedMatMul
// (core/ops/math/fused_epilogue.h) as the GEMM rKernels apply it: once per
// output element, where the rKernel stores the finished product (bias
// added). Split-K variants add partial products into the output, so there
// the chunk of a tile that arrives last applies it to the finished sums
// (cuda/gemm_store.cuh's rammer_gemm_finish).
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"
#include "core/kernels/tile_gemm.h"
#include "core/ops/math/fused_expr.h"

namespace rammer::kernels {

class Epilogue {
 public:
  // None for a plain Conv / Gemm / MatMul; OpError for a malformed fused node.
  static Epilogue of(const ir::Graph& graph, const ir::Node& node);

  bool present() const { return present_; }
  // Into a GEMM-shaped rTask's instantiation: the expression as a local
  // type `Epilogue` whose x0 is the finished product, and the node's other
  // inputs with how each is read at the output element (one value or its
  // own). Nothing without an epilogue.
  void instantiate(GemmInstance& instance) const;
  // Per output element: the expression's operations and the bytes its
  // other inputs add.
  double flopsPerOutput() const { return present_ ? expr_.numOperations() : 0.0; }
  double bytesPerOutput() const;

 private:
  bool present_ = false;
  ops::FusedExpr expr_;
  std::vector<size_t> slots_;  // the node input slot of x1, x2, ...
  std::vector<bool> scalar_;   // that input has one element
};

}  // namespace rammer::kernels

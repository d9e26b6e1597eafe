#include "core/kernels/elementwise_kernels.h"

#include "core/kernels/broadcast_reads.h"
#include "core/ops/math/fused_expr.h"

namespace rammer::kernels {

std::vector<RKernel> elementwiseKernels(const NodeInfo& info) {
  const std::string text = info.node->attrs.getString("expr", "");
  if (text.empty()) throw ops::OpError("FusedElementwise needs an 'expr' attribute");
  const ops::FusedExpr expr = ops::FusedExpr::parse(text);
  const ir::Shape out = info.outShapes.at(0);
  const size_t n = info.numInputs();
  for (size_t k = 0; k < n; ++k)
    if (!info.inPresent[k]) throw ops::OpError("FusedElementwise input " + std::to_string(k) + " is omitted");
  const BroadcastReads reads(info.inShapes, out);
  const int64_t total = ir::numElements(out);

  ElementKernelSpec spec;
  spec.family = "elementwise";
  spec.total = total;
  spec.flops = static_cast<double>(total) * expr.numOperations();
  double bytes = static_cast<double>(total) * 4;
  for (size_t k = 0; k < n; ++k) bytes += static_cast<double>(ir::numElements(info.inShapes[k])) * 4;
  spec.bytes = bytes;
  // elementwise.cuh's body; the expression is the generated part.
  std::vector<std::string> xs(n);
  for (size_t k = 0; k < n; ++k) xs[k] = "x" + std::to_string(k);
  reads.useElementwiseTemplate(spec, cudaExpressionOp("Op", n, expr.toCuda(xs, "const float y", "      "), "y"));
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

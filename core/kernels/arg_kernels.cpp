#include "core/kernels/arg_kernels.h"

#include <string>

#include "core/ir/words.h"
#include "core/kernels/cuda_library.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

std::vector<RKernel> argKernels(const NodeInfo& info) {
  const ir::Shape& x = info.inShapes.at(0);
  if (x.empty()) throw ops::OpError("the input has rank 0");
  const bool isMax = info.node->opType == "ArgMax";
  const bool last = info.node->attrs.getInt("select_last_index", 0) != 0;
  const bool ints = ir::wordKindOf(info.inTypes.at(0)) == ir::WordKind::Int;
  const auto axis =
      static_cast<size_t>(ops::normalizeAxis(info.node->attrs.getInt("axis", 0), static_cast<int64_t>(x.size())));
  int64_t inner = 1;
  for (size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
  const int64_t n = x[axis];
  if (n == 0) throw ops::OpError("the axis is empty");
  const int64_t total = ir::numElements(x) / n;

  ElementKernelSpec spec;
  spec.family = "reduce";
  spec.total = total;
  spec.flops = static_cast<double>(total * n);
  spec.bytes = 4.0 * static_cast<double>(total * (n + 1));
  spec.library = kArgReduce;
  spec.templateName = "rammer_arg_reduce";
  spec.templateArgs = {llArg(inner), llArg(n), boolArg(isMax), boolArg(last), boolArg(ints)};
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

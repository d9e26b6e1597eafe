#include "core/kernels/mask_kernels.h"

#include "core/kernels/cuda_library.h"

namespace rammer::kernels {

std::vector<RKernel> triluKernels(const NodeInfo& info) {
  const ir::Shape& s = info.inShapes.at(0);
  if (s.size() < 2) throw ops::OpError("input must have rank >= 2");
  int64_t k = 0;
  if (info.numInputs() > 1 && info.inPresent[1]) {
    const ir::Tensor* t = info.constant(1);
    if (!t) throw ops::OpError("k is computed at run time; the rKernel needs it constant");
    k = t->getInt64(0);
  }
  const bool upper = info.node->attrs.getInt("upper", 1) != 0;
  const int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
  ElementKernelSpec spec;
  spec.family = "trilu";
  spec.total = ir::numElements(s);
  spec.flops = 0;
  spec.bytes = 8.0 * static_cast<double>(spec.total);
  spec.library = kTrilu;
  spec.templateName = "rammer_trilu";
  spec.templateArgs = {llArg(rows), llArg(cols), llArg(k), boolArg(upper)};
  spec.args = [](const std::string&) { return rtaskArgs(1, 1); };  // k is baked in
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

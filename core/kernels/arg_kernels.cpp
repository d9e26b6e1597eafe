#include "core/kernels/arg_kernels.h"

#include <string>

#include "core/ir/words.h"
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
  const std::string cmp = isMax ? ">" : "<", type = ints ? "int" : "float";
  const std::string load =
      ints ? "__float_as_int(p[k * " + std::to_string(inner) + "LL])" : "p[k * " + std::to_string(inner) + "LL]";
  spec.body = [=](const std::string&, const std::string&) {
    const std::string in = std::to_string(inner);
    std::string s;
    s += "    const float* p = in0 + (long long)(i / " + in + ") * " + std::to_string(n * inner) + "LL + i % " + in +
         ";\n";
    s += "    " + type + " best = " + (ints ? "__float_as_int(p[0])" : "p[0]") + ";\n";
    s += "    int at = 0;\n";
    s += "    for (int k = 1; k < " + std::to_string(n) + "; ++k) {\n";
    s += "      const " + type + " v = " + load + ";\n";
    s += "      if (v " + cmp + " best" + (last ? " || v == best" : "") + ") { best = v; at = k; }\n";
    s += "    }\n";
    s += "    out0[i] = __int_as_float(at);\n";
    return s;
  };
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

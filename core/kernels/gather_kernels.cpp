#include "core/kernels/gather_kernels.h"

#include <string>

#include "core/ir/words.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

std::vector<RKernel> runtimeGatherKernels(const NodeInfo& info) {
  const ir::Shape& data = info.inShapes.at(0);
  if (data.empty()) throw ops::OpError("Gather's data has rank 0");
  if (ir::wordKindOf(info.inTypes.at(1)) != ir::WordKind::Int)
    throw ops::OpError("Gather's indices are " + std::string(ir::dtypeName(info.inTypes.at(1))) +
                       ", not an integer type");
  const auto axis =
      static_cast<size_t>(ops::normalizeAxis(info.node->attrs.getInt("axis", 0), static_cast<int64_t>(data.size())));
  int64_t inner = 1;
  for (size_t d = axis + 1; d < data.size(); ++d) inner *= data[d];
  const int64_t axisDim = data[axis];
  const int64_t numIdx = ir::numElements(info.inShapes.at(1));
  const int64_t total = ir::numElements(info.outShapes.at(0));

  ElementKernelSpec spec;
  spec.family = "copy";
  spec.total = total;
  spec.bytes = 8.0 * static_cast<double>(total) + 4.0 * static_cast<double>(numIdx);
  spec.constantsAsWords = {true, true};
  const std::string in = std::to_string(inner), n = std::to_string(numIdx), a = std::to_string(axisDim);
  spec.body = [=](const std::string& idx, const std::string&) {
    std::string s;
    s += "    const " + idx + " inr = i % " + in + ", t = i / " + in + ";\n";
    s += "    const " + idx + " j = t % " + n + ", o = t / " + n + ";\n";
    s += "    long long k = __float_as_int(in1[j]);\n";
    s += "    if (k < 0) k += " + a + "LL;\n";
    s += "    out0[i] = (k >= 0 && k < " + a + "LL) ? in0[((long long)o * " + a + "LL + k) * " + in +
         "LL + inr] : __int_as_float(0x7fffffff);\n";
    return s;
  };
  return elementKernels(info, spec);
}

std::vector<RKernel> runtimeGatherElementsKernels(const NodeInfo& info) {
  const ir::Shape& data = info.inShapes.at(0);
  const ir::Shape& idxShape = info.inShapes.at(1);
  if (data.empty() || data.size() != idxShape.size())
    throw ops::OpError("GatherElements needs data and indices of the same rank >= 1");
  if (ir::wordKindOf(info.inTypes.at(1)) != ir::WordKind::Int)
    throw ops::OpError("GatherElements' indices are " + std::string(ir::dtypeName(info.inTypes.at(1))) +
                       ", not an integer type");
  const auto axis =
      static_cast<size_t>(ops::normalizeAxis(info.node->attrs.getInt("axis", 0), static_cast<int64_t>(data.size())));
  const std::vector<int64_t> dst = rowMajorStrides(data);
  const int64_t axisDim = data[axis];
  const int64_t total = ir::numElements(idxShape);

  ElementKernelSpec spec;
  spec.family = "copy";
  spec.total = total;
  spec.bytes = 12.0 * static_cast<double>(total);
  spec.constantsAsWords = {true, true};
  spec.body = [=](const std::string& idx, const std::string&) {
    // The data offset of element i with its axis coordinate left out.
    std::string s = "    " + idx + " r = i;\n    long long off = 0;\n";
    for (size_t d = idxShape.size(); d-- > 0;) {
      if (d != axis)
        s += "    off += (long long)(r % " + std::to_string(idxShape[d]) + ") * " + std::to_string(dst[d]) + "LL;\n";
      if (d > 0) s += "    r /= " + std::to_string(idxShape[d]) + ";\n";
    }
    s += "    long long k = __float_as_int(in1[i]);\n";
    s += "    if (k < 0) k += " + std::to_string(axisDim) + "LL;\n";
    s += "    out0[i] = (k >= 0 && k < " + std::to_string(axisDim) + "LL) ? in0[off + k * " +
         std::to_string(dst[axis]) + "LL] : __int_as_float(0x7fffffff);\n";
    return s;
  };
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

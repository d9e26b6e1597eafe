#include "core/kernels/gather_kernels.h"

#include <string>

#include "core/ir/words.h"
#include "core/kernels/cuda_library.h"
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
  spec.library = kGather;
  spec.templateName = "rammer_gather";
  spec.templateArgs = {llArg(inner), llArg(numIdx), llArg(axisDim)};
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
  // The data offset of element i with its axis coordinate left out: the
  // indices' dims with the data's strides, the axis' stride 0.
  std::vector<int64_t> rest = dst;
  rest[axis] = 0;
  spec.library = kGather;
  spec.templateName = "rammer_gather_elements";
  spec.templateArgs = {llArg(axisDim), llArg(dst[axis]), boxArg(idxShape, rest)};
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

#include "core/kernels/scan_kernels.h"

#include "core/kernels/cuda_library.h"
#include "core/ops/op_registry.h"

namespace rammer::kernels {

namespace {

// The input as lines along the axis: line i starts at
// (i / inner) * length * inner + i % inner and steps by `inner`
// (written_runs.h's appendRows).
struct Lines {
  int64_t length = 0, inner = 1, count = 0;
  bool exclusive = false, reverse = false;
};

Lines linesOf(const NodeInfo& info) {
  const ir::Shape& x = info.inShapes.at(0);
  if (x.empty()) throw ops::OpError("input must have rank >= 1");
  const ir::Tensor* axisTensor = info.constant(1);
  if (!axisTensor) throw ops::OpError("the axis input must be a constant");
  const auto axis = static_cast<size_t>(ops::normalizeAxis(axisTensor->getInt64(0), static_cast<int64_t>(x.size())));
  Lines l;
  l.length = x[axis];
  for (size_t d = axis + 1; d < x.size(); ++d) l.inner *= x[d];
  l.count = l.length == 0 ? 0 : ir::numElements(x) / l.length;
  l.exclusive = info.node->attrs.getInt("exclusive", 0) != 0;
  l.reverse = info.node->attrs.getInt("reverse", 0) != 0;
  if (l.count == 0) throw ops::OpError("has no output elements");
  return l;
}

}  // namespace

const std::vector<std::string>& scanOpTypes() {
  static const std::vector<std::string> types = {"CumSum"};
  return types;
}

std::vector<RKernel> scanKernels(const NodeInfo& info) {
  const Lines lines = linesOf(info);
  const int64_t elements = lines.count * lines.length;
  const std::string idx = indexType(elements + 4096);
  ElementKernelSpec spec;
  spec.family = "cumsum";
  spec.total = lines.count;
  spec.flops = static_cast<double>(elements);
  spec.bytes = 8.0 * static_cast<double>(elements);
  spec.library = kScan;
  spec.templateName = "rammer_cumsum";
  spec.templateArgs = {idx, llArg(lines.length), llArg(lines.inner), boolArg(lines.exclusive), boolArg(lines.reverse)};
  spec.args = [](const std::string&) { return rtaskArgs(1, 1); };  // the axis is baked in
  // The range counts lines: line i is `length` elements `inner` apart.
  spec.written = [lines](int64_t begin, int64_t end, std::vector<WrittenRun>& runs) {
    appendRows(runs, begin, end, lines.length, lines.inner);
  };
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

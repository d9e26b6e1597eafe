#include "core/kernels/scatter_kernels.h"

#include <memory>

#include "core/ir/words.h"
#include "core/kernels/cuda_library.h"
#include "core/ops/op_registry.h"

namespace rammer::kernels {

namespace {

constexpr int64_t kMaxSliceTable = 65536;  // entries, as the copy rKernels' flat tables

struct Scatter {
  int64_t slice = 1;              // output elements per index tuple
  std::vector<int64_t> sourceOf;  // per output slice: the update slice, or -1
};

Scatter scatterOf(const NodeInfo& info) {
  const std::string reduction = info.node->attrs.getString("reduction", "none");
  if (reduction != "none") throw ops::OpError("reduction '" + reduction + "' has no rKernel (only 'none')");
  const ir::Shape& data = info.inShapes.at(0);
  const ir::Tensor* idx = info.constant(1);
  if (!idx) throw ops::OpError("the indices must be a constant to bake them into the kernel");
  const ir::Shape& is = idx->shape();
  if (is.empty()) throw ops::OpError("indices must have rank >= 1");
  const auto k = static_cast<size_t>(is.back());
  if (k < 1 || k > data.size()) throw ops::OpError("indices' last dim is not in [1, data rank]");
  Scatter s;
  int64_t slices = 1;
  for (size_t d = 0; d < data.size(); ++d) (d < k ? slices : s.slice) *= data[d];
  if (slices > kMaxSliceTable)
    throw ops::OpError("the output has " + std::to_string(slices) + " index slices, more than a baked table of " +
                       std::to_string(kMaxSliceTable) + " takes");
  s.sourceOf.assign(static_cast<size_t>(slices), -1);
  const std::vector<int64_t> tuples = idx->toInt64s();
  const auto count = static_cast<int64_t>(tuples.size() / k);
  for (int64_t t = 0; t < count; ++t) {
    int64_t at = 0;
    for (size_t j = 0; j < k; ++j) {
      int64_t v = tuples[static_cast<size_t>(t) * k + j];
      if (v < -data[j] || v >= data[j])
        throw ops::OpError("index " + std::to_string(v) + " is out of range for dim " + std::to_string(j) + " of size " +
                           std::to_string(data[j]));
      if (v < 0) v += data[j];
      at = at * data[j] + v;
    }
    s.sourceOf[static_cast<size_t>(at)] = t;  // later tuples overwrite earlier ones
  }
  return s;
}

// Indices computed at run time (a shift mask built from Range, say): each
// output element scans every index tuple for the last one naming its slice,
// so duplicates resolve as in the reference (the last update wins) without
// rTasks racing; a tuple with an index outside its dim names no slice. Work
// grows with elements x tuples: meant for the small scatters models build
// masks with.
std::vector<RKernel> runtimeScatterKernels(const NodeInfo& info) {
  const std::string reduction = info.node->attrs.getString("reduction", "none");
  if (reduction != "none") throw ops::OpError("reduction '" + reduction + "' has no rKernel (only 'none')");
  const ir::Shape& data = info.inShapes.at(0);
  const ir::Shape& is = info.inShapes.at(1);
  if (is.empty()) throw ops::OpError("indices must have rank >= 1");
  if (ir::wordKindOf(info.inTypes.at(1)) != ir::WordKind::Int)
    throw ops::OpError("the indices are " + std::string(ir::dtypeName(info.inTypes.at(1))) + ", not an integer type");
  const auto k = static_cast<size_t>(is.back());
  if (k < 1 || k > data.size()) throw ops::OpError("indices' last dim is not in [1, data rank]");
  int64_t slice = 1;
  for (size_t d = k; d < data.size(); ++d) slice *= data[d];
  const int64_t count = k ? ir::numElements(is) / static_cast<int64_t>(k) : 0;
  const int64_t total = ir::numElements(info.outShapes.at(0));
  ElementKernelSpec spec;
  spec.family = "scatter";
  spec.total = total;
  spec.bytes = 8.0 * static_cast<double>(total) + 4.0 * static_cast<double>(count * static_cast<int64_t>(k));
  spec.flops = static_cast<double>(total) * static_cast<double>(count * static_cast<int64_t>(k));
  spec.constantsAsWords = {true, true, true};
  std::string tuple = "RammerScatterTuple<" + std::to_string(k) + ", 0";
  for (size_t j = 0; j < k; ++j) tuple += ", " + llArg(data[j]);
  spec.library = kScatter;
  spec.templateName = "rammer_scatter_runtime";
  spec.templateArgs = {llArg(slice), std::to_string(count), tuple + ">"};
  return elementKernels(info, spec);
}

}  // namespace

const std::vector<std::string>& scatterOpTypes() {
  static const std::vector<std::string> types = {"ScatterND"};
  return types;
}

std::vector<RKernel> scatterKernels(const NodeInfo& info) {
  if (info.numInputs() > 1 && info.inPresent[1] && !info.constant(1)) return runtimeScatterKernels(info);
  auto scatter = std::make_shared<const Scatter>(scatterOf(info));
  const int64_t total = ir::numElements(info.outShapes.at(0));
  if (total == 0) throw ops::OpError("has no output elements");
  ElementKernelSpec spec;
  spec.family = "scatter";
  spec.total = total;
  spec.bytes = 8.0 * static_cast<double>(total);
  const std::string tableType = indexType(total);
  spec.prelude = [scatter, tableType](const std::string& fn) {
    return cudaIntTable(tableType, fn + "_src", scatter->sourceOf);
  };
  spec.library = kScatter;
  spec.templateName = "rammer_scatter_table";
  spec.templateArgs = {llArg(scatter->slice)};
  // in1, the indices, is baked into the table.
  spec.args = [](const std::string& fn) {
    return std::vector<std::string>{"rtask_id", "tid", "smem", "in0", "in2", "out0", fn + "_src"};
  };
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

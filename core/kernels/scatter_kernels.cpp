#include "core/kernels/scatter_kernels.h"

#include <memory>

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

}  // namespace

const std::vector<std::string>& scatterOpTypes() {
  static const std::vector<std::string> types = {"ScatterND"};
  return types;
}

std::vector<RKernel> scatterKernels(const NodeInfo& info) {
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
  spec.body = [scatter](const std::string& idx, const std::string& fn) {
    const std::string slice = std::to_string(scatter->slice);
    std::string s = "    const " + idx + " k = " + fn + "_src[i / " + slice + "];\n";
    s += "    out0[i] = k < 0 ? in0[i] : in2[k * " + slice + " + i % " + slice + "];\n";
    return s;
  };
  spec.cpu = [scatter](int64_t begin, int64_t end, const TaskBuffers& b) {
    const int64_t slice = scatter->slice;
    for (int64_t e = begin; e < end; ++e) {
      const int64_t k = scatter->sourceOf[static_cast<size_t>(e / slice)];
      b.outputs[0][e] = k < 0 ? b.inputs[0][e] : b.inputs[2][k * slice + e % slice];
    }
  };
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

#include "core/kernels/broadcast_reads.h"

#include <algorithm>

#include "core/kernels/cuda_library.h"
#include "core/kernels/kernel_source.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

BroadcastReads::BroadcastReads(const std::vector<ir::Shape>& ins, const ir::Shape& o) : out(o), inputs(ins) {
  for (const ir::Shape& in : inputs) {
    if (in.size() > out.size()) throw ops::OpError("an input has a higher rank than the output");
    std::vector<int64_t> st(out.size(), 0);
    const std::vector<int64_t> own = rowMajorStrides(in);
    const size_t lead = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d) st[lead + d] = in[d] == 1 ? 0 : own[d];
    strides.push_back(std::move(st));
  }
}

std::vector<std::string> BroadcastReads::cudaReadTypes() const {
  const int64_t total = ir::numElements(out);
  std::vector<std::string> types;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const int64_t numel = ir::numElements(inputs[k]);
    if (numel == total) {
      types.emplace_back("RammerReadSame");
    } else if (numel == 1) {
      types.emplace_back("RammerReadScalar");
    } else {
      types.push_back("RammerReadBroadcast<" + boxArg(out, strides[k]) + ">");
    }
  }
  return types;
}

void BroadcastReads::useElementwiseTemplate(ElementKernelSpec& spec, std::string op) const {
  spec.library = kElementwise;
  spec.templateName = "rammer_elementwise";
  spec.locals = [op = std::move(op)](const std::string&) { return op; };
  spec.templateArgs = {"Op"};
  for (std::string& read : cudaReadTypes()) spec.templateArgs.push_back(std::move(read));
  const size_t n = inputs.size();
  spec.args = [n](const std::string&) {
    std::vector<std::string> args = {"rtask_id", "tid", "smem", "out0"};
    for (size_t k = 0; k < n; ++k) args.push_back("in" + std::to_string(k));
    return args;
  };
}

}  // namespace rammer::kernels

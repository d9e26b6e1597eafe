#pragma once
// How an element-wise rKernel reads inputs that broadcast numpy-style to its
// output: per input, its element stride along each output dim (0 where it
// broadcasts), turned into elementwise.cuh's reads.
// Shared by FusedElementwise and the integer/bool element-wise rKernels.
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/shape.h"
#include "core/kernels/kernel_source.h"

namespace rammer::kernels {

struct BroadcastReads {
  ir::Shape out;
  std::vector<ir::Shape> inputs;
  std::vector<std::vector<int64_t>> strides;  // [input][output dim]

  // Throws ops::OpError for an input of higher rank than the output.
  BroadcastReads(const std::vector<ir::Shape>& inputs, const ir::Shape& out);

  // Per input, index_math.cuh's read type: RammerReadSame (the output's
  // element count: offset i), RammerReadScalar (one value) or
  // RammerReadBroadcast over the output's dims with the input's strides.
  std::vector<std::string> cudaReadTypes() const;

  // Makes `spec` elementwise.cuh's rKernel over these reads with `op`, a
  // local type of instantiation.h's cudaExpressionOp named "Op", as its
  // expression.
  void useElementwiseTemplate(ElementKernelSpec& spec, std::string op) const;
};

}  // namespace rammer::kernels

#pragma once
// How an element-wise rKernel reads inputs that broadcast numpy-style to its
// output: per input, its element stride along each output dim (0 where it
// broadcasts), turned into CUDA index arithmetic and into CPU row walks.
// Shared by FusedElementwise and the integer/bool element-wise rKernels.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/ir/shape.h"

namespace rammer::kernels {

struct BroadcastReads {
  ir::Shape out;
  std::vector<ir::Shape> inputs;
  std::vector<std::vector<int64_t>> strides;  // [input][output dim]

  // Throws ops::OpError for an input of higher rank than the output.
  BroadcastReads(const std::vector<ir::Shape>& inputs, const ir::Shape& out);

  // CUDA statements for element `i` (index type `idx`) that compute the
  // coordinates some input needs, and each input's element offset
  // expression ("i", "0" or "c0 * 8 + c2").
  std::string cudaOffsets(const std::string& idx, std::vector<std::string>& offsets) const;

  // Walks elements [begin, end) in runs along the innermost dim: `run(at,
  // inner, pos, len)` with at[k] input k's offset of element pos and
  // inner[k] its stride along the run.
  using Run = std::function<void(const int64_t* at, const int64_t* inner, int64_t pos, int64_t len)>;
  void forEachRun(int64_t begin, int64_t end, const Run& run) const;
};

}  // namespace rammer::kernels

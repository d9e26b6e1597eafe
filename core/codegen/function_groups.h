#pragma once
// Operators whose rKernels are the same code up to the function's name
// (same family, tiles and baked shapes: the cells of one LSTM layer, the
// branches of a NAS cell) share one __device__ function. Generated code
// then grows with the number of distinct rKernels, not with operators;
// each operator passes its own buffers through the argument table.
#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule/plan.h"

namespace rammer::codegen {

struct FunctionGroup {
  int32_t representative = -1;  // the plan op whose cudaSource is emitted
  std::string function;         // its cudaFunction
  int numArgs = 0;              // pointer arguments (input slots + output slots)
  std::vector<int32_t> ops;     // every plan op using it, ascending
};

struct FunctionGroups {
  std::vector<FunctionGroup> groups;  // in order of first use
  std::vector<int32_t> groupOfOp;     // per plan op; -1 for views
};

// Groups the non-view operators of `plan` by their rKernel source with the
// function name taken out. `opArgs` (BufferTable::opArgs) gives numArgs.
FunctionGroups groupFunctions(const schedule::Plan& plan, const std::vector<std::vector<int32_t>>& opArgs);

// `source` with every occurrence of `name` replaced by a fixed token.
std::string canonicalSource(const std::string& source, const std::string& name);

}  // namespace rammer::codegen

#pragma once
// Element-wise rKernels over integer and bool tensors, held at run time as
// int32 words (core/ir/words.h): one node each, numpy broadcasting as in
// FusedElementwise (broadcast_reads.h).
//   comparisons   Equal Less LessOrEqual Greater GreaterOrEqual: float32 or
//                 integer operands, a bool mask out;
//   logical       And Or Xor Not on bool;
//   Where         a bool condition (computed or constant) selecting the
//                 words of X or Y, whatever their type: the attention mask;
//   Cast          between float32, bool and the integer types: float to
//                 integer truncates and saturates at the target's range (NaN
//                 gives 0), integer to narrower integer wraps, as the
//                 reference does (int64 saturates at int32: its words);
//   arithmetic    Add Sub Mul Div Mod Max Min Neg Abs on integers, computed
//                 in 64 bits and wrapped to the output type. A division or
//                 modulo by zero gives 0 (the reference stops with an error;
//                 a GPU cannot).
// float32 arithmetic stays with FusedElementwise, which fuses it.
#include <string>
#include <vector>

#include "core/kernels/kernel_source.h"
#include "core/kernels/rkernel.h"

namespace rammer::kernels {

const std::vector<std::string>& wordElementwiseOpTypes();

// Reads the node itself (readNode with words); throws ops::OpError for a
// form it does not take (float32 arithmetic, a type without words).
std::vector<RKernel> wordElementwiseKernels(const NodeInfo& info);

}  // namespace rammer::kernels

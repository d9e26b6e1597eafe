#pragma once
// The instantiation writer (issue #44 item 1): the one place that prints
// CUDA text around the bodies in core/kernels/cuda/*.cuh. An rTask function
// is the signature every rKernel has and one call of a library template
// whose parameters are the shapes and tiling; an expression family adds its
// expression as a local type (cudaExpressionOp), a copy its baked tables
// (cudaIntTable, cudaTableReader). Every other generator only chooses
// template arguments (tests/docs/check_kernel_strings.py holds the rule).
#include <cstdint>
#include <string>
#include <vector>

namespace rammer::kernels {

// The CUDA function head, `__device__ void NAME(int rtask_id, int tid,
// float* smem, const float* in0, ..., float* out0, ...)` with the opening
// brace; the pointers __restrict__ unless `restrictPointers` is false.
std::string cudaSignature(const std::string& name, size_t numInputs, size_t numOutputs, bool restrictPointers = true);

// A call of a library template: `name<templateArgs...>(args...)`.
struct TemplateCall {
  std::string name;
  std::vector<std::string> templateArgs;
  // Empty: every argument of the rTask function (rtaskArgs of all).
  std::vector<std::string> args;
  // Types defined in the function before the call, for the template
  // arguments: the generated expression (cudaExpressionOp).
  std::string locals;
  // The GEMM-shaped families take plain pointers (cuda/gemm_store.cuh).
  bool restrictPointers = true;
};

// A local type `name` with `static float apply(float x0, ..., float
// x<arity-1>)` (parameters named `prefix` and the number) that runs
// `statements` and returns `result`: the generated part of the expression
// families (the expression of ops/math/fused_expr.h or of a word operator)
// as a template argument.
std::string cudaExpressionOp(const std::string& name, size_t arity, const std::string& statements,
                             const std::string& result, const std::string& prefix = "x");

// The rTask function's arguments a template takes: rtask_id, tid, smem,
// the first `numInputs` inputs and the first `numOutputs` outputs (a
// template that reads only in0 of an operator with constant inputs after it).
std::vector<std::string> rtaskArgs(size_t numInputs, size_t numOutputs);

// Template arguments: "123LL" (the shapes, so that any size fits the
// parameter) and "true"/"false".
std::string llArg(int64_t v);
inline std::string boolArg(bool v) { return v ? "true" : "false"; }
// index_math.cuh's RammerBox over dims with extents `ext` and strides
// `stride` (outermost first; `stride` may go on past `ext`'s dims), as the
// type lists them: innermost first.
std::string boxArg(const std::vector<int64_t>& ext, const std::vector<int64_t>& stride);

// index_math.cuh's RammerDims of a tensor of dims `dims` (outermost first).
std::string dimsArg(const std::vector<int64_t>& dims);

// The whole rTask function `name` whose body is `call`.
std::string cudaInstantiation(const std::string& name, size_t numInputs, size_t numOutputs, const TemplateCall& call);

// An rTask function `name` that does nothing (an operator with empty outputs).
std::string cudaEmptyFunction(const std::string& name, size_t numInputs, size_t numOutputs);

// A local type `type` with `static const T* values()`, the table `table`
// (cudaIntTable) of element type `elementType`: how a template reads it.
std::string cudaTableReader(const std::string& type, const std::string& table, const std::string& elementType);

// Literal table `static __device__ const T name[] = {...};` for index data
// baked into a kernel.
std::string cudaIntTable(const std::string& type, const std::string& name, const std::vector<int64_t>& values);

}  // namespace rammer::kernels

#pragma once
// The fixed-algorithm rKernel bodies written as real CUDA (core/kernels/
// cuda/*.cuh: templates over the shapes), compiled into rammer as text. An
// rKernel names the files its source needs (RKernel::cudaLibraries); code
// generation writes each one once, after the target's prelude, into the
// program (CUDA, HIP and the host target alike), so a generator only emits
// a short instantiation and the constants still fold.
#include <string_view>
#include <vector>

#include "core/ir/text_file.h"

namespace rammer::kernels {

const std::vector<ir::TextFile>& cudaLibraryFiles();

// The text of one file by name; empty when unknown.
std::string_view cudaLibrary(std::string_view name);

inline constexpr const char* kGemmMainloop = "gemm_mainloop.cuh";
inline constexpr const char* kGemv = "gemv.cuh";
inline constexpr const char* kSplitK = "splitk.cuh";
inline constexpr const char* kBlockReduce = "block_reduce.cuh";
inline constexpr const char* kSoftmax = "softmax.cuh";  // after block_reduce.cuh
inline constexpr const char* kLayerNorm = "layer_norm.cuh";  // after block_reduce.cuh
inline constexpr const char* kAttention = "attention.cuh";  // after index_math.cuh
inline constexpr const char* kGlobalPool = "global_pool.cuh";  // after block_reduce.cuh
inline constexpr const char* kElementLoop = "element_loop.cuh";
inline constexpr const char* kIndexMath = "index_math.cuh";
inline constexpr const char* kWindowPool = "window_pool.cuh";  // after element_loop.cuh, index_math.cuh
inline constexpr const char* kReduce = "reduce.cuh";  // after block_reduce.cuh, element_loop.cuh, index_math.cuh
inline constexpr const char* kGather = "gather.cuh";  // after element_loop.cuh, index_math.cuh
inline constexpr const char* kArgReduce = "arg_reduce.cuh";  // after element_loop.cuh, index_math.cuh
inline constexpr const char* kTrilu = "trilu.cuh";  // after element_loop.cuh, index_math.cuh
inline constexpr const char* kScan = "scan.cuh";  // after element_loop.cuh, index_math.cuh
inline constexpr const char* kScatter = "scatter.cuh";  // after element_loop.cuh
inline constexpr const char* kElementwise = "elementwise.cuh";  // after element_loop.cuh, index_math.cuh
inline constexpr const char* kCell = "cell.cuh";  // after element_loop.cuh
inline constexpr const char* kGemvCell = "gemv_cell.cuh";  // after gemv.cuh, cell.cuh
inline constexpr const char* kFusedGroup = "fused_group.cuh";  // after index_math.cuh, window_pool.cuh
inline constexpr const char* kConvGeometry = "conv_geometry.cuh";
inline constexpr const char* kCopy = "copy.cuh";  // after index_math.cuh
inline constexpr const char* kGemmStore = "gemm_store.cuh";  // after index_math.cuh, splitk.cuh
// After index_math.cuh, gemm_mainloop.cuh, splitk.cuh, gemm_store.cuh:
inline constexpr const char* kGemmRTask = "gemm_rtask.cuh";
inline constexpr const char* kGemvRTask = "gemv_rtask.cuh";  // after gemv.cuh, splitk.cuh, gemm_store.cuh
// After index_math.cuh, conv_geometry.cuh, splitk.cuh, gemm_store.cuh:
inline constexpr const char* kConvDepthwise = "conv_depthwise.cuh";

}  // namespace rammer::kernels

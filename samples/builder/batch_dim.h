#pragma once
// Symbolic name of the batch dim of every sample model's inputs and outputs.
namespace rammer::samples {

inline constexpr const char* kBatchDim = "batch";

}  // namespace rammer::samples

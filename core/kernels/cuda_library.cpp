#include "core/kernels/cuda_library.h"

namespace rammer::kernels {

std::string_view cudaLibrary(std::string_view name) { return ir::findTextFile(cudaLibraryFiles(), name); }

}  // namespace rammer::kernels

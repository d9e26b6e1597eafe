#include "core/kernels/cuda_library.h"

namespace rammer::kernels {

std::string_view cudaLibrary(std::string_view name) {
  for (const CudaLibraryFile& f : cudaLibraryFiles())
    if (name == f.name) return f.text;
  return {};
}

}  // namespace rammer::kernels

#pragma once
// Writes a generated program as a self-contained project folder:
//   kernels.cu|hip|cpp  the generated kernels plus a host-side kernel table
//   main.cu|hip|cpp     the harness (harness_source.h)
//   rammer_host.h, rammer_host_runtime.cpp   the host target's prelude and runtime (host only)
//   manifest.txt    buffers, launches, outputs (text, one record a line)
//   data/           raw little-endian float32: b<i>.bin for weights and
//                   inputs, expected_<k>.bin for the reference outputs
//   CMakeLists.txt  and README.txt with the build and run commands
// buildCommand() says how each target builds (nvcc, hipcc, or the system
// C++ compiler with Boost.Context for the host).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/ir/tensor.h"

namespace rammer::codegen {

struct ExportData {
  std::string modelName;
  std::string policy;
  std::string device;
  std::vector<ir::Tensor> inputs;    // per graph input (float32)
  std::vector<ir::Tensor> expected;  // per graph output (float32), from the reference executor
};

struct ExportSummary {
  std::vector<std::filesystem::path> files;  // everything written
  int64_t dataBytes = 0;
  std::string buildCommand;
};

// "cuda", "hip", "host".
const char* targetName(Target target);

// How the exported project builds by hand (also in its README.txt).
std::string buildCommand(Target target);

// The distinct kernels of the launches, in first-use order: the manifest's
// launch records index this list.
std::vector<std::string> distinctKernels(const GeneratedProgram& program);

// The kernels file: `program.source` plus the host-side table of kernel
// addresses (distinctKernels order) the harness launches through.
std::string kernelsFileSource(const GeneratedProgram& program);

// manifest.txt (see the harness for the reader).
std::string manifestText(const GeneratedProgram& program, const ExportData& data);

// Only manifest.txt and data/: what a built program (the host target's
// cached builds) needs to run. With `data.expected` empty the outputs are
// not checked (their records name "-").
ir::Result<ExportSummary> writeProgramData(const std::filesystem::path& dir, const GeneratedProgram& program,
                                           const ir::Graph& graph, const ExportData& data);

// `graph` provides the weights (constant values of Weight buffers). Creates
// `dir`; errors name the file that could not be written or the tensor that
// does not match its buffer.
ir::Result<ExportSummary> writeProject(const std::filesystem::path& dir, const GeneratedProgram& program,
                                       const ir::Graph& graph, const ExportData& data);

}  // namespace rammer::codegen

#pragma once
// Writes an ir::Graph as an ONNX model file. The output is deterministic: the
// same graph and options give byte-identical files, so generated models can
// be compared and committed. No ONNX/protobuf type appears in this header.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"

namespace rammer::onnx_export {

struct ExportOptions {
  std::string producerName = "rammer-studio";
  std::string producerVersion = "0.1.0";
  // Dims that carry a symbolic name (ir::Value::dimParams) are written as that
  // name even when their extent is known (e.g. a batch bound at import), so a
  // reader may bind them again. Off: known extents are written as numbers.
  bool symbolicDims = false;
  // Also declare the types of intermediate values (value_info) so viewers
  // show shapes without running inference.
  bool valueInfo = false;
  // ONNX IR version; 0 picks the one that goes with the graph's opset.
  int64_t irVersion = 0;
  // Opset versions of non-default domains used by the nodes; a domain not
  // listed gets version 1.
  std::map<std::string, int64_t> domainVersions;
};

// The ONNX IR version released together with a default-domain opset.
int64_t irVersionForOpset(int64_t opset);

// Serialises the graph (nodes in topological order, constants without a
// producer as initializers). Errors name what cannot be written: no opset,
// a cycle, unnamed values, a model over protobuf's 2 GiB limit.
ir::Result<std::string> exportModelToBytes(const ir::Graph& graph, const ExportOptions& options = {});

// Same, written to `file` (through a temporary file in the same folder, so a
// failed write never leaves a truncated model). Returns errors; empty on
// success.
std::vector<ir::Diagnostic> exportModel(const ir::Graph& graph, const std::filesystem::path& file,
                                        const ExportOptions& options = {});

}  // namespace rammer::onnx_export

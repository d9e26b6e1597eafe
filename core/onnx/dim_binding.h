#pragma once
// Binds symbolic and unknown dims of the graph inputs to concrete sizes from
// the import options (inputShapes by input name, then `batch`), and carries
// each bound symbol to every value that declares a dim of the same name.
#include "core/ir/graph.h"
#include "core/onnx/error_list.h"
#include "core/onnx/importer.h"

namespace rammer::onnx_import {

void bindDims(ir::Graph& graph, const ImportOptions& options, ErrorList& errors);

}  // namespace rammer::onnx_import

#include "core/onnx/importer.h"

namespace rammer::onnx_import {

ir::Result<ir::Graph> importModel(const std::filesystem::path& file, const ImportOptions& options) {
  return ir::makeError("importer not written yet", {}, file.string());
}

}  // namespace rammer::onnx_import

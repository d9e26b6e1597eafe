#pragma once
// Importing a model for a subcommand: the importer's diagnostics become a
// CliError so every command reports them the same way.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli_support.h"
#include "core/ir/graph.h"
#include "core/onnx/importer.h"

namespace rammer::cli {

// CliError unless `file` names an existing regular file.
void requireFile(const std::filesystem::path& file, const std::string& what);

// Imports `file` (with type inference unless options say otherwise)
// through the pipeline's Import stage.
std::shared_ptr<const ir::Graph> loadModel(const std::filesystem::path& file,
                                           const onnx_import::ImportOptions& options, const Progress& progress);

// One message per diagnostic, joined by newlines.
[[noreturn]] void throwDiagnostics(const std::vector<ir::Diagnostic>& errors, const std::string& context = {});

}  // namespace rammer::cli

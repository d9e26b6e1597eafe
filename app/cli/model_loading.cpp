#include "app/cli/model_loading.h"

#include <system_error>

#include "app/cli/pipeline_driver.h"

namespace rammer::cli {

void requireFile(const std::filesystem::path& file, const std::string& what) {
  std::error_code ec;
  auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) throw CliError(file.string() + ": " + what + " not found");
  if (!std::filesystem::is_regular_file(status)) throw CliError(file.string() + ": " + what + " is not a regular file");
}

void throwDiagnostics(const std::vector<ir::Diagnostic>& errors, const std::string& context) {
  std::string text = ir::formatDiagnostics(errors);
  if (text.empty()) text = "unknown error";
  throw CliError(context.empty() ? text : context + ": " + text);
}

std::shared_ptr<const ir::Graph> loadModel(const std::filesystem::path& file,
                                           const onnx_import::ImportOptions& options, const Progress& progress) {
  progress.status("importing " + file.string() + "...");
  pipeline::Options o;
  o.modelPath = file.string();
  o.import = options;
  pipeline::Pipeline p(std::move(o));
  runStages(p, pipeline::Stage::Import, pipeline::Stage::Import, Progress::silent());
  return p.artifacts().original;
}

}  // namespace rammer::cli

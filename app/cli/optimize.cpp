#include "app/cli/optimize.h"

#include "app/cli/model_loading.h"

namespace rammer::cli {

std::vector<passes::PassRecord> optimizeGraph(ir::Graph& graph, const Progress& progress) {
  progress.status("optimizing...");
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(graph, ctx);
  if (!records) throwDiagnostics(records.errors(), "optimizing");
  return std::move(records).value();
}

}  // namespace rammer::cli

#include "app/cli/optimize.h"

#include "app/cli/pipeline_driver.h"

namespace rammer::cli {

OptimizedGraph optimizeGraph(std::shared_ptr<const ir::Graph> original, const Progress& progress) {
  progress.status("optimizing...");
  pipeline::Pipeline p{pipeline::Options{}};
  p.artifacts().original = std::move(original);
  runStages(p, pipeline::Stage::Optimize, pipeline::Stage::Optimize, Progress::silent());
  return OptimizedGraph{p.artifacts().optimized, p.artifacts().passLog};
}

}  // namespace rammer::cli

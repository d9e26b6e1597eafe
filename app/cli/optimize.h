#pragma once
// `--optimize`: the standard pass pipeline on an imported graph (the
// pipeline's Optimize stage), shared by every subcommand that takes a model.
#include <memory>
#include <vector>

#include "app/cli/cli_support.h"
#include "core/ir/graph.h"
#include "core/passes/pass_manager.h"

namespace rammer::cli {

struct OptimizedGraph {
  std::shared_ptr<const ir::Graph> graph;
  std::vector<passes::PassRecord> passes;
};

// The passes on a copy of `original`; CliError naming the pass on failure.
OptimizedGraph optimizeGraph(std::shared_ptr<const ir::Graph> original, const Progress& progress);

}  // namespace rammer::cli

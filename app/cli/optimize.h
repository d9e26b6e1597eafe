#pragma once
// `--optimize`: the standard pass pipeline on an imported graph, shared by
// every subcommand that takes a model.
#include <vector>

#include "app/cli/cli_support.h"
#include "core/ir/graph.h"
#include "core/passes/pass_manager.h"

namespace rammer::cli {

// Runs passes::standardPipeline(); CliError naming the pass on failure.
std::vector<passes::PassRecord> optimizeGraph(ir::Graph& graph, const Progress& progress);

}  // namespace rammer::cli

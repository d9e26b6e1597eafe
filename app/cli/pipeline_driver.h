#pragma once
// The CLI's side of core/pipeline: every subcommand runs its stages through
// here, so progress goes to stderr the same way and a failed stage becomes
// one CliError carrying that stage's diagnostics.
#include "app/cli/cli_support.h"
#include "core/pipeline/pipeline.h"

namespace rammer::cli {

// Runs `from`..`to` of `p`; CliError naming the problems of a failed stage.
void runStages(pipeline::Pipeline& p, pipeline::Stage from, pipeline::Stage to, const Progress& progress);

}  // namespace rammer::cli

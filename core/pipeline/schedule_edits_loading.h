#pragma once
// The schedule edits a plan is made under: the options' own constraints,
// or those of a schedule edits file (core/schedule/schedule_edits.h), and
// which graph they name. With automatic attention fusion the Optimize stage
// leaves two graphs; edits saved from a plan with attention fused name the
// fused graph's operators, and then that graph is the one planned.
#include <optional>
#include <string>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/constraints.h"

namespace rammer::pipeline {

struct Options;

struct LoadedEdits {
  schedule::Constraints constraints;
  bool namesFusedGraph = false;  // plan `fused`, not `optimized`
};

// `fused` may be null (no fused alternative). Errors name the file: not
// found, unreadable, or edits that do not parse against either graph.
ir::Result<LoadedEdits> loadScheduleEdits(const Options& options, const ir::Graph& optimized,
                                          const ir::Graph* fused);

// "F: <what> not found" / "is not a regular file", as the CLI always said it.
std::optional<ir::Diagnostic> fileProblem(const std::string& path, const std::string& what);

}  // namespace rammer::pipeline

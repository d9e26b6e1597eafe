#pragma once
// The memory check before planning: a plan made to run on the CPU (the
// emulator or the host target) is refused before the Schedule stage when
// the run could not fit its memory budget anyway, because planning a tensor
// of billions of elements costs gigabytes itself. The reference executor's
// peak is a lower bound of what the emulator or the host program holds.
#include <optional>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/pipeline/run_stage.h"

namespace rammer::pipeline {

// Why `graph` cannot run as `run` asks within its budget; nothing when it
// may (or when the run is not on the CPU).
std::optional<ir::Diagnostic> cpuRunMemoryProblem(const ir::Graph& graph, const RunOptions& run);

}  // namespace rammer::pipeline

#pragma once
// The hand-off microbenchmark (issue #45 item 2): a chain of small
// dependent operators and nothing beside them, so every operator waits for
// the one before it and a run's time is its rTasks plus one hand-off per
// link. Each link is a GEMV of a [1, 256] activation by a 256 x 256 weight,
// split into rTasks over many vEUs like a recurrent cell step. The trace's critical
// path is the chain; its hand-offs are the samples (rammer schedule
// --measured prints their median and p99).
#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

inline constexpr int64_t kHandoffChainLinks = 128;
inline constexpr int64_t kHandoffChainWidth = 256;

ir::Graph buildHandoffChain(const SampleConfig& config);

}  // namespace rammer::samples

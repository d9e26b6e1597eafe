#pragma once
// Schedule edits: the JSON file the GUI writes and `--schedule` reads,
// turned into Constraints (and back). Format: docs/SCHEDULE_EDITS.md.
//   {"version": 1, "edits": [
//     {"op": "pin_kernel", "node": "conv1", "kernel": "conv_igemm_32x32"},
//     {"op": "move", "node": "conv1", "rtask": 3, "veu": 5, "order": 2},
//     {"op": "move", "node": "conv1", "veu": 7},
//     {"op": "cut_before", "node": "relu3"},
//     {"op": "merge_before", "node": "relu3"}]}
#include <string>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/constraints.h"

namespace rammer::schedule {

// Parses edits; with a graph, node names must name its nodes, or nodes a
// pass fused into one of them (its "fused_nodes"), which then stand for
// the fused node. Errors name the edit index and the problem; `source` (a
// file name) goes into them.
ir::Result<Constraints> parseScheduleEdits(const std::string& text, const ir::Graph* graph = nullptr,
                                           const std::string& source = {});
// The edits that reproduce `constraints` (pins, then kernels, then cuts).
std::string scheduleEditsToJson(const Constraints& constraints);

}  // namespace rammer::schedule

#pragma once
// Stage-synchronous programs (the greedy policy's and IOS's): stages run
// one after another inside an rProgram, every rTask of a stage waiting for
// every rTask of the previous stage of that program (a global barrier),
// and each rTask goes to the vEU that frees up first. A stage's `chains`
// add order inside it: each operator of a chain waits for the one before
// (IOS runs the operators of a group in sequence).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/schedule/plan_builder.h"

namespace rammer::schedule {

struct PlacedStage {
  std::vector<int32_t> ops;  // in an order that puts producers first
  size_t program = 0;        // index into the drafts
  std::vector<std::vector<int32_t>> chains;
};

// Fills `drafts` (one per program the stages name, cut reasons already
// set): their operators, barrier dependencies, vDevices and placements.
// Records one decision line per program.
ir::Result<bool> placeStages(PlanBuilder& b, const std::vector<PlacedStage>& stages, std::vector<ProgramDraft>& drafts);

}  // namespace rammer::schedule

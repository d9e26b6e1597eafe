#pragma once
// The schedule edits the studio offers, as pure functions from the current
// Constraints to the edited ones. Undo commands hold a before and an after
// Constraints built with these, so an edit is a value the session can
// re-run the policy with (and the CLI read back from the edits JSON).
#include <cstdint>
#include <string>

#include "core/schedule/constraints.h"

namespace rammer::viz {

// Pins `kernel` for `node`; an empty kernel removes the pin (policy's choice).
schedule::Constraints withKernelPinned(schedule::Constraints c, const std::string& node, const std::string& kernel);
// Every rTask of `node` on vEU `veu` (from `order` on; -1 keeps the policy's
// order). Replaces the node's earlier pins.
schedule::Constraints withOpMoved(schedule::Constraints c, const std::string& node, int veu, int order = -1);
// One rTask; replaces an earlier pin of the same rTask.
schedule::Constraints withTaskMoved(schedule::Constraints c, const std::string& node, int64_t rtask, int veu,
                                    int order = -1);
// A program boundary forced before `node` (drops a merge there), or forbidden.
schedule::Constraints withCutBefore(schedule::Constraints c, const std::string& node);
schedule::Constraints withMergeBefore(schedule::Constraints c, const std::string& node);
// The program that runs `node` gets `veusPerSM` (1, 2 or 4) vEUs per SM;
// 0 leaves the shape to the policy.
schedule::Constraints withShapePinned(schedule::Constraints c, const std::string& node, int veusPerSM);

// Field by field (pins in order).
bool sameConstraints(const schedule::Constraints& a, const schedule::Constraints& b);

}  // namespace rammer::viz

#pragma once
// Persistent cells where they pay (issue #45 item 3). A policy plans a
// recurrent cell with its weight slices kept in shared memory
// (kernels::RKernel::residentBytes) when the slice makes the cell's rTask
// cheaper; but each slice is then pinned to its home vEU for every step
// (schedule/resident_pins.h), the program's vEUs need the shared memory
// for it, and the policy's other choices (program cuts, shapes) follow
// from those estimates. Whether the plan as a whole is faster is the
// simulator's to say: the Schedule stage plans the graph again without
// resident cells and keeps the plan the cost model predicts faster.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/ir/diagnostic.h"
#include "core/schedule/plan.h"
#include "core/sim/cost_model.h"

namespace rammer::pipeline {

struct ResidentChoice {
  bool resident = true;  // the plan kept keeps its cells' weights on chip
  int64_t cells = 0;     // operators of the policy's plan with a resident rKernel
  double residentUs = 0, reloadingUs = 0;  // predicted, with and without resident cells
  std::string summary;  // "990 cells keep their weights on chip: 1436.6 us predicted, 2151.1 us reloading them"
};

// Operators of `plan` whose rKernel keeps a resident slice.
int64_t residentCells(const schedule::Plan& plan);

// nullopt when `chosen` keeps nothing resident. Otherwise plans again with
// `planReloading` (the same policy without resident rKernels) and leaves in
// `chosen` whichever of the two `model` predicts faster (the resident one
// on a tie or when the other plan or a simulation fails).
std::optional<ResidentChoice> weighResidentCells(schedule::Plan& chosen,
                                                 const std::function<ir::Result<schedule::Plan>()>& planReloading,
                                                 std::shared_ptr<const sim::CostModel> model);

}  // namespace rammer::pipeline

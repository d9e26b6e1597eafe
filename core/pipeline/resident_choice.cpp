#include "core/pipeline/resident_choice.h"

#include <fmt/format.h>

#include "core/sim/plan_figures.h"
#include "core/sim/simulator.h"

namespace rammer::pipeline {

int64_t residentCells(const schedule::Plan& plan) {
  int64_t n = 0;
  for (const schedule::PlannedOp& op : plan.ops)
    if (!op.isView && op.kernel.residentBytes > 0) ++n;
  return n;
}

std::optional<ResidentChoice> weighResidentCells(schedule::Plan& chosen,
                                                 const std::function<ir::Result<schedule::Plan>()>& planReloading,
                                                 std::shared_ptr<const sim::CostModel> model) {
  ResidentChoice out;
  out.cells = residentCells(chosen);
  if (out.cells == 0) return std::nullopt;
  const sim::Simulator simulator(std::move(model));
  auto resident = simulator.run(chosen);
  if (!resident) return std::nullopt;
  out.residentUs = sim::figuresOf(chosen, &*resident).predictedUs;
  auto other = planReloading();
  if (!other) {
    out.summary = fmt::format("{} cells keep their weights on chip ({:.1f} us predicted; planning without failed)",
                              out.cells, out.residentUs);
    return out;
  }
  auto reloading = simulator.run(*other);
  if (!reloading) return std::nullopt;
  out.reloadingUs = sim::figuresOf(*other, &*reloading).predictedUs;
  out.resident = out.residentUs <= out.reloadingUs;
  out.summary = out.resident ? fmt::format("{} cells keep their weights on chip: {:.1f} us predicted, {:.1f} us "
                                           "reloading them every step",
                                           out.cells, out.residentUs, out.reloadingUs)
                             : fmt::format("cells reload their weights every step: {:.1f} us predicted, {:.1f} us with "
                                           "{} keeping them on chip",
                                           out.reloadingUs, out.residentUs, out.cells);
  if (!out.resident) chosen = std::move(other).value();
  return out;
}

}  // namespace rammer::pipeline

#include "core/sim/profiled_cost_model.h"

#include <fmt/core.h>

#include "core/sim/analytic_cost_model.h"

namespace rammer::sim {

ProfiledCostModel::ProfiledCostModel(std::shared_ptr<const ProfileDB> db, std::shared_ptr<const CostModel> fallback)
    : db_(db ? std::move(db) : std::make_shared<const ProfileDB>()),
      fallback_(fallback ? std::move(fallback) : std::make_shared<const AnalyticCostModel>()) {}

std::string ProfiledCostModel::name() const {
  return fmt::format("profile database ({}, {} rKernels) + {}", db_->device().empty() ? "no device" : db_->device(),
                     db_->size(), fallback_->name());
}

const ProfileEntry* ProfiledCostModel::measurement(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                                                   int veusPerSM) const {
  if (db_->empty() || device.id != db_->device()) return nullptr;
  return db_->lookup(kernel, veusPerSM);
}

double ProfiledCostModel::taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                                     const TaskContext& context) const {
  const ProfileEntry* e = measurement(kernel, device, context.veusPerSM);
  if (!e || e->taskTime.samples <= 0) return fallback_->taskTimeUs(kernel, device, context);
  if (e->veusPerSM == context.veusPerSM) return e->taskTime.medianUs;
  const double there = fallback_->taskTimeUs(kernel, device, TaskContext{e->veusPerSM, 0, 0, 0});
  const double here = fallback_->taskTimeUs(kernel, device, context);
  return there > 0 ? e->taskTime.medianUs * here / there : e->taskTime.medianUs;
}

ProfileCoverage profileCoverage(const ProfileDB& db, const schedule::Plan& plan) {
  ProfileCoverage c;
  const bool sameDevice = plan.device.id == db.device();
  for (const schedule::PlannedOp& op : plan.ops) {
    if (op.isView || op.kernel.numRTasks <= 0) continue;
    ++c.ops;
    if (sameDevice && db.lookup(op.kernel, 1)) ++c.measured;
  }
  return c;
}

}  // namespace rammer::sim

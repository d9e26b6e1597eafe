#pragma once
// A CostModel that answers from the profile database where it has measured
// the rKernel on this device, and from another model (the analytic one)
// everywhere else, so a partly profiled plan is still fully predicted.
//
// A measurement taken at the asked vEUs per SM is returned as it is: the
// median time of one rTask in the profiled run, whatever else was running
// then. One taken at another occupancy is scaled by how the fallback model's
// time changes between the two occupancies. Launch and barrier overheads
// are the fallback's.
#include <memory>
#include <string>

#include "core/schedule/plan.h"
#include "core/sim/cost_model.h"
#include "core/sim/profile_db.h"

namespace rammer::sim {

class ProfiledCostModel : public CostModel {
 public:
  ProfiledCostModel(std::shared_ptr<const ProfileDB> db, std::shared_ptr<const CostModel> fallback);

  // "profile database (h100, 37 rKernels) + analytic cost model"
  std::string name() const override;
  double taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                    const TaskContext& context) const override;
  double launchOverheadUs(const device::DeviceSpec& device) const override {
    return fallback_->launchOverheadUs(device);
  }
  double barrierOverheadUs(const device::DeviceSpec& device) const override {
    return fallback_->barrierOverheadUs(device);
  }
  double dispatchOverheadUs(const device::DeviceSpec& device) const override {
    return fallback_->dispatchOverheadUs(device);
  }

  // The measurement taskTimeUs would use, or nullptr (another device, or not profiled).
  const ProfileEntry* measurement(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                                  int veusPerSM) const;
  const ProfileDB& db() const { return *db_; }

 private:
  std::shared_ptr<const ProfileDB> db_;
  std::shared_ptr<const CostModel> fallback_;
};

// How much of a plan the database covers: operators with rTasks, and those
// of them whose rKernel has a measurement at their program's occupancy or another.
struct ProfileCoverage {
  size_t ops = 0;
  size_t measured = 0;
};
ProfileCoverage profileCoverage(const ProfileDB& db, const schedule::Plan& plan);

}  // namespace rammer::sim

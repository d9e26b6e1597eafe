#pragma once
// A CostModel turns the work of a plan into time: how long one rTask of an
// rKernel runs on one vEU, what a kernel launch (rProgram boundary) costs and
// what a barrier-rTask costs once the slots it waits for are complete. The
// analytic model (analytic_cost_model.h) derives them from the DeviceSpec; a
// measured profile database can replace it behind this interface.
//
// Policies take their per-rTask estimate through PolicyOptions::taskTime
// (with every vEU of the device busy) and their launch and barrier costs
// from the DeviceSpec; policyOptions() hands a model's task time to them so
// a policy plans with the numbers the simulator predicts with.
#include <memory>
#include <string>

#include "core/device/device_spec.h"
#include "core/kernels/rkernel.h"
#include "core/schedule/policy.h"

namespace rammer::sim {

// Where an rTask runs: how many vEUs share each SM (the program's
// occupancy), and how many vEUs are running an rTask when it starts, on its
// SM and on the whole device, itself included (they compete for the SM's
// issue slots and for DRAM). 0 means all of them: veusPerSM on the SM,
// veusPerSM x SMs on the device (a busy device, what policies assume).
// The policies' TaskLoad, so a policy can ask what the simulator will.
using TaskContext = schedule::TaskLoad;

class CostModel {
 public:
  virtual ~CostModel() = default;
  // Shown in Trace::source: "analytic cost model".
  virtual std::string name() const = 0;
  // Microseconds one rTask of `kernel` takes on one vEU.
  virtual double taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                            const TaskContext& context) const = 0;
  // From the end of one rProgram to the first rTask of the next (or of the
  // first program from time zero).
  virtual double launchOverheadUs(const device::DeviceSpec& device) const = 0;
  // From the completion of the last slot a barrier waits for to the moment the
  // waiting vEU sees it (release store, fence and acquire poll).
  virtual double barrierOverheadUs(const device::DeviceSpec& device) const = 0;
  // In a dynamic program, from the end of a vEU's rTask to the start of its
  // next one when one is ready: the gate arrivals, the claim and the block
  // barriers of the ready queue (schedule/dynamic_program.h).
  virtual double dispatchOverheadUs(const device::DeviceSpec& device) const = 0;
  // In a dynamic program, from the end of the rTask that opens an operator's
  // gate to the moment a vEU polling the queue sees the operator: a release
  // store and an acquire poll, a barrier's hand-off unless measured apart.
  virtual double queueHandoffUs(const device::DeviceSpec& device) const { return barrierOverheadUs(device); }
};

// The model's task time with every vEU busy, as a policy's TaskTimeFn
// (shares ownership of the model).
schedule::TaskTimeFn taskTimeFn(std::shared_ptr<const CostModel> model);
// Default policy options (the kernel library) with the model's task time,
// busy and under a given load.
schedule::PolicyOptions policyOptions(std::shared_ptr<const CostModel> model);

}  // namespace rammer::sim

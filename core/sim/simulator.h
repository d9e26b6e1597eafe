#pragma once
// The discrete-event simulator: runs a Plan's rPrograms on its DeviceSpec
// with a CostModel and predicts the Trace a GPU run would record.
//
// Each vEU executes its stream in order; events are processed in time order
// over all vEUs. An rTask's duration is fixed when it starts, by the model,
// from its program's vEUs per SM, from how many vEUs are running an rTask
// at that moment, on its SM and on the device (they compete for issue slots
// and DRAM; later arrivals do not slow it down), and from how many vEUs of
// its SM are waiting at a barrier (they poll; the calibrated model prices
// it, sim::Calibration). A barrier-rTask holds its
// vEU until every slot it waits for has completed, plus the model's barrier
// overhead (nothing more when they completed long before). Programs run one
// after another: a program's vEUs start one launch overhead after the
// previous program's last vEU ended.
//
// Trace::metrics gets: rtasks, barriers, programs, launch_overhead_us (all
// launches), barrier_wait_veu_us and rtask_veu_us (summed over vEUs).
//
// A plan whose barriers can never be released (a wait cycle, a wait on a
// later slot of the same vEU, a slot that does not exist) is an error that
// names the stuck vEUs, never a hang.
#include <memory>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/schedule/plan.h"
#include "core/sim/cost_model.h"
#include "core/sim/trace.h"

namespace rammer::sim {

class Simulator {
 public:
  explicit Simulator(std::shared_ptr<const CostModel> model);
  const CostModel& model() const { return *model_; }

  ir::Result<Trace> run(const schedule::Plan& plan) const;

 private:
  std::shared_ptr<const CostModel> model_;
};

// SM efficiency of a trace's task events: per SM the union of its rTask
// intervals, summed, over sms x totalUs (0 when either is 0).
double computeSmEfficiency(const std::vector<TaskEvent>& tasks, int sms, double totalUs);

}  // namespace rammer::sim

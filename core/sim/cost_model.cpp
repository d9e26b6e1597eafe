#include "core/sim/cost_model.h"

namespace rammer::sim {

schedule::TaskTimeFn taskTimeFn(std::shared_ptr<const CostModel> model) {
  return [model = std::move(model)](const kernels::RKernel& k, const device::DeviceSpec& d, int veusPerSM) {
    return model->taskTimeUs(k, d, TaskContext{veusPerSM, 0, 0, 0});
  };
}

schedule::PolicyOptions policyOptions(std::shared_ptr<const CostModel> model) {
  schedule::PolicyOptions o;
  o.taskTime = taskTimeFn(model);
  o.handoffTime = [model](const device::DeviceSpec& d) { return model->barrierOverheadUs(d); };
  o.loadedTaskTime = [model = std::move(model)](const kernels::RKernel& k, const device::DeviceSpec& d,
                                                const schedule::TaskLoad& load) { return model->taskTimeUs(k, d, load); };
  return o;
}

}  // namespace rammer::sim

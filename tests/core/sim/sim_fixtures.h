#pragma once
// Hand-built plans and a cost model with fixed times, so the simulator's
// results can be worked out by hand.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/schedule/plan.h"
#include "core/sim/cost_model.h"
#include "tests/core/schedule/schedule_fixtures.h"

namespace rammer::testing {

// rTask time by rKernel name; records the context of every call.
class FixedCostModel : public sim::CostModel {
 public:
  FixedCostModel(std::map<std::string, double> taskUs, double launchUs, double barrierUs)
      : taskUs_(std::move(taskUs)), launchUs_(launchUs), barrierUs_(barrierUs) {}
  std::string name() const override { return "fixed test model"; }
  double taskTimeUs(const kernels::RKernel& k, const device::DeviceSpec&, const sim::TaskContext& c) const override {
    calls.push_back({k.name, c});
    auto it = taskUs_.find(k.name);
    return it == taskUs_.end() ? 1.0 : it->second;
  }
  double launchOverheadUs(const device::DeviceSpec&) const override { return launchUs_; }
  double barrierOverheadUs(const device::DeviceSpec&) const override { return barrierUs_; }
  // A dispatch costs what a barrier does here: one overhead to set in tests.
  double dispatchOverheadUs(const device::DeviceSpec&) const override { return barrierUs_; }

  struct Call {
    std::string kernel;
    sim::TaskContext context;
  };
  mutable std::vector<Call> calls;

 private:
  std::map<std::string, double> taskUs_;
  double launchUs_, barrierUs_;
};

// A plan of ops named "a", "b", ... whose rKernels "a_k", "b_k", ... have
// `tasks` rTasks each, with hand-written programs (streams, vEUs/SM).
struct HandProgram {
  std::vector<std::vector<schedule::Instr>> streams;
  int veusPerSM = 1;
};
inline schedule::Plan handPlan(int numOps, int64_t tasks, std::vector<HandProgram> programs, int sms = 2) {
  schedule::Plan plan;
  plan.policy = "hand";
  plan.device = smallDevice(sms);
  for (int i = 0; i < numOps; ++i) {
    schedule::PlannedOp op;
    op.name = std::string(1, static_cast<char>('a' + i));
    op.opType = "Relu";
    op.kernel = fakeKernel(op.name + "_k", tasks, 1e6);
    if (i > 0) op.producers = {i - 1};
    plan.ops.push_back(op);
  }
  for (auto& p : programs)
    plan.programs.push_back(
        schedule::ProgramInfo{schedule::RProgram::fromStreams(std::move(p.streams)), p.veusPerSM, "hand"});
  return plan;
}

// exec() and wait() come from schedule_fixtures.h.

}  // namespace rammer::testing

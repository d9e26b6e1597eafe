#pragma once
// A device profile fitted from measured GPU runs (`rammer calibrate`, issue
// #28 item 2), and the cost model that answers from it.
//
// The fit keeps the analytic model's shape and measures its terms:
//   - an rTask of rKernel variant v takes  fixedUs_v + scale_v x roofline,
//     where the roofline is the analytic model's time at efficiency 1 in the
//     same context (vEUs on its SM and on the device), so sharing an SM or
//     DRAM slows rTasks as the roofline says, by the fitted scale. Fitted per
//     variant (rKernel name) where the runs hold two or more of its
//     operators, per family otherwise; the analytic model (with its
//     efficiencies) answers for a family the runs never ran;
//   - each vEU of its program waiting at a barrier on its SM (polling)
//     slows it by `waitingSlowdown` (x (1 + waitingSlowdown x waiting)),
//     fitted on the rTasks that ran beside waiting vEUs, after the above is
//     fitted on those that did not;
//   - `taskGapUs`: between two rTasks of one operator on a vEU (the
//     persistent loop's fetch of the next rTask), added to each rTask;
//   - `launchUs`: from the end of one program to the first rTask of the next;
//   - `barrierUs`: from the end of the last slot a barrier waits for to the
//     start of the waiting vEU's next rTask, where the vEU was waiting;
//   - `dispatchUs`: in the dynamic runs, between two rTasks of one operator
//     on a vEU (the ready queue's gate arrivals and claim, which the next
//     rTask never waits for), less `taskGapUs`, which the model adds anyway;
//   - `queueHandoffUs`: in the dynamic runs, from the end of an operator's
//     last producer rTask to its first rTask's start where the vEU that took
//     it was idle by then, less a dispatch and `taskGapUs` (the push seen by
//     a vEU polling the queue; elsewhere the wait was for a vEU).
// Each fit is over operators (the median of its rTasks, measured against
// the same rTasks simulated), weighted by relative error: a 2 us rTask
// counts as much as a 2 ms one.
//
// JSON ("rammer-calibration" version 1):
//   {"format": "rammer-calibration", "version": 1, "device": "h100",
//    "gpu": "NVIDIA H100 80GB HBM3", "source": "tests/data/gpu_traces/2026-11-26-h100 (21 runs)",
//    "task_gap_us": 0.4, "launch_us": 4.1, "barrier_us": 1.2, "dispatch_us": 3.1, "waiting_slowdown": 0.13,
//    "variants": {"gemm_64x64": {"fixed_us": 1.1, "scale": 3.2, "ops": 12, "median_error": 0.08}},
//    "families": {"gemm": {...}}}
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/schedule/plan.h"
#include "core/sim/cost_model.h"
#include "core/sim/trace.h"

namespace rammer::sim {

struct RTaskFit {
  double fixedUs = 0;
  double scale = 1;
  int ops = 0;             // operators fitted
  double medianError = 0;  // median |fit - measured| / measured over them
};

struct Calibration {
  static constexpr const char* kFormat = "rammer-calibration";
  static constexpr int kVersion = 1;

  std::string device;                        // DeviceSpec id
  std::string gpu;                           // the card measured
  std::string source;                        // the runs fitted
  std::map<std::string, RTaskFit> variants;  // by rKernel name
  std::map<std::string, RTaskFit> families;  // by rKernel family
  double taskGapUs = 0;
  double launchUs = 0;
  double barrierUs = 0;
  double dispatchUs = 0;
  double queueHandoffUs = 0;
  double waitingSlowdown = 0;  // per waiting vEU beside an rTask
  int crowdedOps = 0;          // operators it was fitted on
  // 0: the device's own value is kept
  int launchSamples = 0, barrierSamples = 0, gapSamples = 0, dispatchSamples = 0, queueHandoffSamples = 0;

  // The fit for `kernel`: its variant's, else its family's, else nullptr.
  const RTaskFit* fitFor(const kernels::RKernel& kernel) const;
};

// A measured run and the plan it ran (planOfMeasuredTrace).
struct MeasuredRun {
  std::string name;  // "alexnet.wavefront", for messages
  const schedule::Plan* plan = nullptr;
  const Trace* measured = nullptr;  // op indices as the trace's
  double latencyUs = 0;             // end to end, uninstrumented: what predictions are judged by, not fitted
  // A dynamic run: its vEUs took rTasks from the ready queue, and `plan`
  // replays where and in what order they ran (planOfMeasuredTrace), so its
  // gaps are dispatches, not the fetches and barrier hand-offs of a static plan.
  bool dispatched = false;
};

// Fits `runs` (at least one) for `device`.
ir::Result<Calibration> fitCalibration(const std::vector<MeasuredRun>& runs, const device::DeviceSpec& device);

std::string calibrationToJson(const Calibration& c);
// Errors name the field and what is wrong with it; `source` names the text.
ir::Result<Calibration> parseCalibration(const std::string& text, const std::string& source);
ir::Result<Calibration> loadCalibration(const std::filesystem::path& file);

class CalibratedCostModel : public CostModel {
 public:
  // `fallback` answers for families the calibration lacks (default: analytic).
  explicit CalibratedCostModel(std::shared_ptr<const Calibration> calibration,
                               std::shared_ptr<const CostModel> fallback = nullptr);

  // "calibrated profile (h100, tests/data/gpu_traces/2026-11-26-h100 (21 runs))"
  std::string name() const override;
  double taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                    const TaskContext& context) const override;
  double launchOverheadUs(const device::DeviceSpec& device) const override;
  double barrierOverheadUs(const device::DeviceSpec& device) const override;
  double dispatchOverheadUs(const device::DeviceSpec& device) const override;
  double queueHandoffUs(const device::DeviceSpec& device) const override;
  const Calibration& calibration() const { return *calibration_; }

 private:
  std::shared_ptr<const Calibration> calibration_;
  std::shared_ptr<const CostModel> fallback_;
};

// The analytic model's time at efficiency 1: what the fit scales.
double rooflineUs(const kernels::RKernel& kernel, const device::DeviceSpec& device, const TaskContext& context);

}  // namespace rammer::sim

#pragma once
// Hardware counters per rProgram from the CUPTI Range Profiler (CUDA 13's
// replacement of the event/metric API): auto ranges (one per kernel
// launch, i.e. per rProgram) with kernel replay, so any number of passes
// runs inside each launch and the host code stays one run.
//
// The metrics:
//   SM efficiency   smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
//   warp activity   sm__warps_active.avg.pct_of_peak_sustained_active
//   active cycles   sm__cycles_active.avg
// The host side (metric configuration for a chip) needs no GPU; enabling,
// collecting and decoding do.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "profiler/cupti_loader.h"

namespace rammer::profiler {

inline constexpr const char* kSmEfficiencyMetric = "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kWarpActivityMetric = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kSmCyclesActiveMetric = "sm__cycles_active.avg";

// The three, in that order (what a ProgramCounters' values hold).
std::vector<std::string> programMetricNames();

// A configuration image scheduling `metrics` on `chip`.
struct MetricConfig {
  std::string chip;  // "GH100"
  std::vector<std::string> metrics;
  std::vector<uint8_t> image;
  size_t passes = 0;  // replay passes the metrics need
};

// Whether CUPTI's host side (libnvperf_host) can be used by this build:
// CUPTI opens it with RTLD_DEEPBIND, which AddressSanitizer refuses (it
// aborts the process), so sanitizer builds report counters unavailable.
bool counterHostUsable();

// The chips this CUPTI's host side can configure ("GH100", "GA100", ...).
ir::Result<std::vector<std::string>> supportedChips(const CuptiLibrary& cupti);

// Host side only, no GPU needed. `counterAvailability` is the device's
// image (empty: assume every counter of the chip). Errors name the chip or
// the metric CUPTI refused.
ir::Result<MetricConfig> buildMetricConfig(const CuptiLibrary& cupti, const std::string& chip,
                                           const std::vector<std::string>& metrics,
                                           const std::vector<uint8_t>& counterAvailability = {});

// Metric values of one range (one kernel launch), in metric order.
using RangeValues = std::vector<double>;

// One launch's values, the mean over its runs after the first `skipRuns`.
struct ProgramCounters {
  int32_t program = -1;
  std::string kernel;
  int runs = 0;
  std::vector<double> values;
};

// Auto ranges are numbered in launch order, so range i is launch i mod n
// of run i / n. An error when the count is not a whole number of runs or a
// range does not have `numMetrics` values.
ir::Result<std::vector<ProgramCounters>> attributeRanges(const std::vector<RangeValues>& ranges,
                                                         const std::vector<codegen::KernelLaunch>& launches,
                                                         size_t numMetrics, int skipRuns);

// What the device offers for counters (on a GPU): its chip and whether
// this user may read them.
struct CounterSupport {
  std::string chip;
  size_t passes = 0;
};
// `context` is the CUcontext to profile (the device's primary context),
// `device` its CUdevice and `deviceIndex` its ordinal. Leaves CUPTI's
// profiler deinitialized. The error says which capability is missing.
ir::Result<CounterSupport> probeCounters(const CuptiLibrary& cupti, void* context, int device, int deviceIndex,
                                         const std::vector<std::string>& metrics);

class RangeProfiler {
 public:
  // Initializes CUPTI's profiler, reads the chip and the counter
  // availability of `context`, configures `metrics`, and enables the range
  // profiler on `context` for up to `maxRanges` launches.
  static ir::Result<std::unique_ptr<RangeProfiler>> enable(std::shared_ptr<const CuptiLibrary> cupti, void* context,
                                                           int deviceIndex, const std::vector<std::string>& metrics,
                                                           size_t maxRanges);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  const MetricConfig& config() const { return config_; }
  ir::Result<bool> start();
  ir::Result<bool> stop();
  // After stop: the values of every range, in launch order.
  ir::Result<std::vector<RangeValues>> decode();

 private:
  explicit RangeProfiler(std::shared_ptr<const CuptiLibrary> cupti);
  struct State;
  std::shared_ptr<const CuptiLibrary> cupti_;
  std::unique_ptr<State> state_;
  MetricConfig config_;
};

}  // namespace rammer::profiler

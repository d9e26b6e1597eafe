#pragma once
// Kernel timings from the CUPTI Activity API: while a tracer runs, CUPTI
// records every kernel launch (CONCURRENT_KERNEL) with its GPU start and
// end; the records are then matched to a GeneratedProgram's launches (one
// per rProgram), run by run.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "profiler/cupti_loader.h"

namespace rammer::profiler {

// One kernel execution as CUPTI saw it (times in GPU nanoseconds).
struct KernelRecord {
  std::string name;
  uint64_t startNs = 0;
  uint64_t endNs = 0;
  uint32_t correlationId = 0;
  uint32_t deviceId = 0;
  uint32_t contextId = 0;
  uint32_t streamId = 0;
  int32_t gridX = 0, gridY = 0, gridZ = 0;
  int32_t blockX = 0, blockY = 0, blockZ = 0;
  int registers = 0;
  int64_t staticSharedBytes = 0;
  int64_t dynamicSharedBytes = 0;

  bool complete() const { return endNs > startNs; }
  double durationUs() const { return complete() ? static_cast<double>(endNs - startNs) / 1000.0 : 0.0; }
};

// The durations of one launch over the timed runs.
struct LaunchTimes {
  int32_t program = -1;
  std::string kernel;
  std::vector<double> us;  // one per run, in run order
};

struct KernelAttribution {
  std::vector<LaunchTimes> launches;  // one per GeneratedProgram launch, in order
  size_t unmatched = 0;   // complete records of kernels the program does not launch
  size_t incomplete = 0;  // records without an end time
};

// Matches records to launches. Launches run in order on one stream, so the
// k-th execution of a kernel name belongs to the (k mod n)-th of the n
// launches with that name (sequential plans reuse a kernel for several
// operators) in run k / n; the first `skipRuns` runs (warm-up) are dropped.
KernelAttribution attributeKernelRecords(std::vector<KernelRecord> records,
                                         const std::vector<codegen::KernelLaunch>& launches, int skipRuns);

// The kernel records in a buffer of CUPTI activity records (other kinds
// are skipped); `validBytes` as CUPTI reported them.
std::vector<KernelRecord> decodeActivityBuffer(const CuptiLibrary& cupti, uint8_t* buffer, size_t validBytes);

class ActivityTracer {
 public:
  // Registers CUPTI's buffer callbacks and enables kernel records. One
  // tracer at a time per process (CUPTI's activity state is per process).
  static ir::Result<std::unique_ptr<ActivityTracer>> start(std::shared_ptr<const CuptiLibrary> cupti);
  ~ActivityTracer();
  ActivityTracer(const ActivityTracer&) = delete;
  ActivityTracer& operator=(const ActivityTracer&) = delete;

  // Disables kernel records, flushes CUPTI's buffers and returns what they
  // held, in delivery order. Call after the launches have completed.
  ir::Result<std::vector<KernelRecord>> stop();
  // Records CUPTI reported dropped (buffers full).
  size_t dropped() const { return dropped_; }

  // CUPTI's buffer-completed callback hands records over here.
  void deliver(std::vector<KernelRecord> records, size_t dropped);

 private:
  explicit ActivityTracer(std::shared_ptr<const CuptiLibrary> cupti) : cupti_(std::move(cupti)) {}
  std::shared_ptr<const CuptiLibrary> cupti_;
  bool running_ = false;
  std::vector<KernelRecord> records_;  // guarded by the callback slot's mutex
  size_t dropped_ = 0;
};

// Whether the Activity API works here: registers the callbacks and turns
// kernel records on and off again. The error is CUPTI's code in words.
ir::Result<bool> checkActivityApi(const CuptiLibrary& cupti);

}  // namespace rammer::profiler

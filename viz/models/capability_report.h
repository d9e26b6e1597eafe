#pragma once
// What this machine offers the studio, in one line for the status bar:
//   "GPU: NVIDIA H100 80GB HBM3 — CUPTI counters available"
//   "simulated: no GPU (no CUDA driver)"
// plus the full explanation for its tooltip. Probing loads the driver and
// calls cuInit, which can take a moment: probe off the UI thread.
#include <QString>
#include <optional>

#include "core/runtime/cuda_probe.h"

namespace rammer::viz {

// What the profiler found out about CUPTI (counters may be restricted even
// where a GPU runs code).
struct CuptiStatus {
  bool activity = false;  // kernel timings (Activity API)
  bool counters = false;  // SM efficiency, warp activity (Range Profiler)
  QString message;        // why not, when not
};

struct CapabilityReport {
  runtime::CudaCapability cuda;
  std::optional<CuptiStatus> cupti;  // absent: not probed (no profiler in this build)
  bool gpu() const { return cuda.canRun(); }
  QString text;    // the status-bar line
  QString detail;  // the tooltip: driver, NVRTC, CUPTI in full sentences
};

CapabilityReport describeCapability(const runtime::CudaCapability& cuda, const std::optional<CuptiStatus>& cupti);
// Probes CUDA (and CUPTI where the profiler is built in).
CapabilityReport probeCapability();

}  // namespace rammer::viz

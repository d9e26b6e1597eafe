#pragma once
// A lease's measured runs against the cost model (issue #28 items 2 and 3),
// what `rammer calibrate` and CI run: each run's plan rebuilt from its trace
// (sim::planOfMeasuredTrace, on the graph its build optimized: this build's
// epilogue and RNN-cell fusions, else, for a lease of an older build, those
// unfused; attention fused where a flash-attention rKernel ran; a dynamic
// run fitted as it ran and predicted as the dynamic program it was),
// the calibration fitted on the runs of some policies (sim::fitCalibration),
// and every run predicted with it and with the analytic model beside its
// measured latency (the uninstrumented median of its run.json).
//
// The lease format is tests/data/gpu_traces/README.md's: runs/MODEL.POLICY
// .trace.json.xz and .run.json.xz. A run whose model is in none of the
// model folders (as MODEL.onnx or MODEL/model.onnx), or whose plan cannot be
// rebuilt (an rKernel this build no longer offers, an operator its policy
// merged or grouped into a new one), is kept with the reason and left out.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/sim/calibration.h"

namespace rammer::pipeline {

struct LeaseCalibrationOptions {
  std::filesystem::path lease;                      // the folder holding runs/
  std::vector<std::filesystem::path> modelFolders;  // where the runs' models are
  std::vector<std::string> fitPolicies;             // fit on these policies' runs; empty: every run
  std::function<void(size_t done, size_t total)> progress;
};

struct LeaseRunResult {
  std::string key, model, policy;  // "alexnet.wavefront", "alexnet", "wavefront"
  std::string skipped;             // why it was left out; empty when it was rebuilt
  bool fitted = false;
  double measuredUs = 0, calibratedUs = 0, analyticUs = 0;
  double calibratedError() const { return (calibratedUs - measuredUs) / measuredUs; }
  double analyticError() const { return (analyticUs - measuredUs) / measuredUs; }
};

// Two runs of one model that measured more than 10% apart and that the
// calibrated prediction orders the other way (or calls equal).
struct Misranking {
  std::string model, faster, slower;
  double measuredRatio = 0;  // slower / faster, measured
};

struct LeaseCalibration {
  sim::Calibration calibration;
  std::vector<LeaseRunResult> runs;  // by key
  // Over the runs not fitted (every rebuilt run when all were fitted):
  size_t judged = 0;
  bool allFitted = false;
  double medianAbsError = 0, maxAbsError = 0, analyticMedianAbsError = 0;
  std::vector<Misranking> misranked;
};

// An error when the folder holds no runs or no run of the fit policies
// could be rebuilt.
ir::Result<LeaseCalibration> calibrateLease(const LeaseCalibrationOptions& options);

}  // namespace rammer::pipeline

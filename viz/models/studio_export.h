#pragma once
// What the studio's Export menu writes that needs no widget: the schedule
// as JSON, the data-flow graph as Graphviz DOT, a trace as Chrome trace
// JSON, and a self-contained CUDA/HIP project (the pipeline's Export
// stage: kernels, harness, weights, inputs and the reference outputs it
// checks against). Each is a pure function of the session's state, safe to
// run off the UI thread.
// (Graph SVG/PNG and timeline PNG are drawn by the widgets themselves.)
#include <filesystem>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/codegen/project_export.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/constraints.h"
#include "core/schedule/plan.h"
#include "core/sim/trace.h"
#include "viz/models/studio_pipeline.h"
#include "viz/models/side_job_report.h"

namespace rammer::viz {

// {"format": "rammer-schedule", "version": 1, "model", "policy", "device",
//  "device_name", "predicted_latency_us", "sm_efficiency" (with a
//  prediction), "edits" (the schedule-edits object `rammer schedule
//  --schedule` reads, docs/SCHEDULE_EDITS.md), "ops": [{index, name, type,
//  view, kernel, rule, rtasks, threads, shared_bytes}], "programs": [{index,
//  veus, veus_per_sm, cut_reason, streams: per vEU a list of {"op", "rtask"}
//  or {"wait": [[veu, order], ...]}}], "decisions": [...]}
std::string scheduleJson(const schedule::Plan& plan, const schedule::Constraints& constraints,
                         const sim::Trace* predicted, const std::string& modelPath);

// digraph of the operators (boxes "name\nOpType", with the chosen rKernel
// when a plan is given), graph inputs and outputs (ellipses), edges labelled
// with their shapes.
std::string graphDot(const ir::Graph& graph, const schedule::Plan* plan = nullptr);

// Writes `text` to `path`; diagnostics naming the file when it cannot.
std::vector<ir::Diagnostic> writeTextFile(const std::filesystem::path& path, const std::string& text);
std::vector<ir::Diagnostic> writeChromeTraceFile(const std::filesystem::path& path, const sim::Trace& trace);

// The pipeline's Generate and Export stages with `options` (its `generate`
// target and `project` folder and seed) on `given` (the imported graph, the
// graph the plan runs and the plan): the plan's code, seeded inputs, the
// expected outputs of the reference executor on the imported graph
// (cancellable), the project written.
ir::Result<codegen::ExportSummary> runProjectExport(const pipeline::Options& options, pipeline::Artifacts given,
                                                    const pipeline::Control& control);

enum class ExportKind {
  CudaProject,      // folder
  HipProject,       // folder
  ScheduleJson,     // file
  PredictedTrace,   // Chrome trace JSON of the prediction
  MeasuredTrace,    // Chrome trace JSON of the last run (GPU or emulator)
  GraphDot,         // Graphviz DOT of the optimized graph
};

// What an export wrote: the errors, or a line saying what and where.
struct ExportWritten {
  std::vector<ir::Diagnostic> errors;
  std::string message;
};

// Writes `kind` to `file` from the session's applied `options` and
// artifacts `given` (`measured`: the last run's trace, for MeasuredTrace).
// What `kind` needs is there (exportJob checked it). The export job's work.
ExportWritten writeExport(ExportKind kind, const std::filesystem::path& file, pipeline::Options options,
                          const pipeline::Artifacts& given, const sim::Trace* measured,
                          const pipeline::Control& control);

// The job writing `kind` to `path` from the session's applied options and
// artifacts: refused without a path or without what `kind` needs (a plan,
// a prediction, a measured run, a model).
SideJob exportJob(ExportKind kind, const QString& path, const pipeline::Options& applied,
                  const pipeline::Artifacts& given);

// What the session applies: the message saying what was written, or the
// error, tagged with the Export stage.
SideJobReport exportReport(ExportWritten written);

}  // namespace rammer::viz

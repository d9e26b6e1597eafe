#pragma once
// Compiling a plan's CUDA with NVRTC for its device, no GPU needed (the
// studio's Compile with NVRTC): the pipeline's Generate and Compile stages
// on the session's artifacts, as plain CUDA, the code whose latency a run
// reports. A pure function the session runs on its job runner, off the UI
// thread; the session only applies the result (the plan whose rKernels
// carry the compiled registers).
#include <memory>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/pipeline/pipeline.h"
#include "viz/models/side_job_report.h"

namespace rammer::viz {

struct NvrtcCompiled {
  std::vector<ir::Diagnostic> errors;  // a compile error, or "cancelled"
  std::shared_ptr<const pipeline::CompiledCode> compiled;
};

NvrtcCompiled compileWithNvrtcFor(pipeline::Options options, const pipeline::Artifacts& given,
                                  const pipeline::Control& control);

// The job on the session's applied options and artifacts: refused without
// a plan.
SideJob nvrtcJob(const pipeline::Options& applied, const pipeline::Artifacts& given);

// What the session applies: the compiled plan and each program's registers,
// spills and blocks per SM for the Log; nothing but a line when the plan
// changed while it compiled (`planChanged`), the error otherwise.
SideJobReport nvrtcReport(NvrtcCompiled& out, bool planChanged);

}  // namespace rammer::viz

#include "viz/models/nvrtc_compile_job.h"

namespace rammer::viz {

NvrtcCompiled compileWithNvrtcFor(pipeline::Options options, const pipeline::Artifacts& given,
                                  const pipeline::Control& control) {
  options.generate = codegen::CodegenOptions{};
  NvrtcCompiled out;
  pipeline::StagesResult r =
      pipeline::runStages(options, given, pipeline::Stage::Generate, pipeline::Stage::Compile, control);
  if (!r.report.ok()) out.errors = r.report.cancelled ? std::vector{ir::makeError("cancelled")} : r.report.errors();
  else out.compiled = r.artifacts.compiled;
  return out;
}

SideJob nvrtcJob(const pipeline::Options& applied, const pipeline::Artifacts& given) {
  const auto tr = sessionText;
  const QString title = tr("Compile with NVRTC");
  if (!given.plan) return refusedJob(title, tr("there is no valid plan to compile"));
  SideJob job{title, {}, tr("Compiling with NVRTC"), PipelineStage::Compile, given.plan, {}};
  job.work = [options = applied, given](const pipeline::Control& control) -> SideJob::Finish {
    auto out = std::make_shared<NvrtcCompiled>(compileWithNvrtcFor(options, given, control));
    return [out](bool planChanged) { return nvrtcReport(*out, planChanged); };
  };
  return job;
}

SideJobReport nvrtcReport(NvrtcCompiled& out, bool planChanged) {
  const auto tr = sessionText;
  if (!out.errors.empty()) return failedReport(PipelineStage::Compile, std::move(out.errors), tr("Compile with NVRTC"));
  SideJobReport r;
  r.jobOk = true;
  if (planChanged) {
    r.info(tr("Compile with NVRTC: the plan changed meanwhile; its counts are dropped"));
    return r;
  }
  r.ok = true;
  r.info(tr("NVRTC %1 for %2: what ptxas gave each program%3")
             .arg(QString::fromStdString(out.compiled->version), QString::fromStdString(out.compiled->arch),
                  out.compiled->cached ? tr(" (compiled before: taken from the cache)") : QString()));
  for (const runtime::ProgramResources& p : out.compiled->programs) r.info(QString::fromStdString(p.summary));
  r.plan = out.compiled->plan;  // the same plan; its rKernels carry the compiled registers
  return r;
}

}  // namespace rammer::viz

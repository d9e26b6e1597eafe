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

}  // namespace rammer::viz

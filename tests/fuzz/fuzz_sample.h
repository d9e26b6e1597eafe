#pragma once
// A committed sample model, imported and optimized once, for the fuzz
// targets that vary something other than the model.
#include <memory>
#include <string>

#include "core/pipeline/pipeline.h"

namespace rammer::fuzz {

inline rammer::pipeline::Artifacts optimizedSample(const std::string& name) {
  rammer::pipeline::Options o;
  o.modelPath = std::string(RAMMER_SOURCE_DIR "/samples/models/") + name + ".onnx";
  rammer::pipeline::Pipeline p(o);
  p.run(rammer::pipeline::Stage::Import, rammer::pipeline::Stage::Optimize);
  return p.artifacts();
}

}  // namespace rammer::fuzz

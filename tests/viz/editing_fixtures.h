#pragma once
// sample_cnn through the studio's pipeline (import -> optimize -> schedule
// -> validate -> simulate) without a session: the optimized graph and a
// plan for the editing, code and compare tests.
#include <gtest/gtest.h>

#include <string>

#include "viz/models/studio_pipeline.h"

namespace rammer::viztest {

inline std::string sampleCnnPath() { return RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx"; }

inline viz::PipelineResult planSampleCnn(const std::string& policy = "wavefront") {
  viz::PipelineRequest q;
  q.from = viz::PipelineStage::Import;
  q.to = viz::PipelineStage::Simulate;
  q.options = viz::studioOptions(sampleCnnPath(), {.policy = schedule::parsePolicy(policy).value()});
  viz::PipelineResult r = viz::runPipeline(q, {});
  EXPECT_TRUE(r.ok()) << ir::formatDiagnostics(r.report.diagnostics);
  return r;
}

inline int opIndex(const schedule::Plan& plan, const std::string& name) {
  for (size_t i = 0; i < plan.ops.size(); ++i)
    if (plan.ops[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace rammer::viztest

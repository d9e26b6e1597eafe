#pragma once
// For the policy tests on real graphs: a committed sample model optimized
// as the pipeline does it (batch 1), and plans made with the analytic cost
// model on the H100 preset, as `rammer schedule` makes them.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"

namespace rammer::testing {

// Optimized for `policy`: epilogues fused or not as it would have them
// (pipeline::EpilogueFusion::Auto).
inline std::shared_ptr<const ir::Graph> optimizedModel(const std::string& name,
                                                       const std::string& policy = "wavefront") {
  pipeline::Options o;
  o.policy = schedule::parsePolicy(policy).value();
  o.modelPath = std::string(RAMMER_SOURCE_DIR "/samples/models/") + name + ".onnx";
  o.import.batch = 1;
  pipeline::Pipeline p(o);
  const pipeline::Report r = p.run(pipeline::Stage::Import, pipeline::Stage::Optimize);
  EXPECT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  return p.artifacts().optimized;
}

inline ir::Result<schedule::Plan> analyticPlan(const std::string& policy, const ir::Graph& g,
                                               const schedule::Constraints& c = {}, schedule::IosOptions ios = {},
                                               schedule::GraphTurboOptions gt = {}) {
  schedule::PolicyOptions options = sim::policyOptions(std::make_shared<sim::AnalyticCostModel>());
  options.ios = std::move(ios);
  options.graphturbo = std::move(gt);
  return schedule::makePolicy(policy, options).value()->schedule(g, device::presetDevice("h100").value(), c);
}

inline double predictedUs(const schedule::Plan& p) {
  return sim::Simulator(std::make_shared<sim::AnalyticCostModel>()).run(p).value().totalUs;
}

}  // namespace rammer::testing

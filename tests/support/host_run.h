#pragma once
// What the host-target tests share: one build cache for the whole test run
// (the runtime and harness objects are compiled once), seeded inputs, and
// the relative L2 error the tolerance is stated in.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/exec/random_inputs.h"
#include "core/ir/graph.h"
#include "core/pipeline/pipeline.h"
#include "core/runtime/host_execution.h"

namespace rammer::testing {

inline std::filesystem::path hostTestCache() { return std::filesystem::path(RAMMER_BINARY_DIR) / "host-cache"; }

inline runtime::HostExecutionOptions hostTestOptions() {
  runtime::HostExecutionOptions o;
  o.build.cacheDir = hostTestCache();
  o.timeoutSeconds = 600;
  return o;
}

inline std::vector<ir::Tensor> seededInputs(const ir::Graph& g, uint64_t seed = 7) {
  auto inputs = exec::makeRandomInputs(g, seed);
  if (!inputs) throw std::runtime_error(inputs.errorText());
  return std::move(inputs).value();
}

// ||got - want||_2 / ||want||_2 (the difference itself when want is 0);
// infinity on a shape mismatch or a NaN where the reference has none.
inline double relativeL2(const ir::Tensor& got, const ir::Tensor& want) {
  if (got.numel() != want.numel()) return INFINITY;
  double diff = 0, norm = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = got.getDouble(i), b = want.getDouble(i);
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
    if (std::isnan(a)) continue;
    diff += (a - b) * (a - b);
    norm += b * b;
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// The worst relative L2 error over the outputs.
inline double worstRelativeL2(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want) {
  if (got.size() != want.size()) return INFINITY;
  double worst = 0;
  for (size_t k = 0; k < want.size(); ++k) worst = std::max(worst, relativeL2(got[k], want[k]));
  return worst;
}

// `graph` through the pipeline from Optimize to Run on `target` (the host
// with the shared test build cache, no trace): the Run stage checks the
// outputs against the reference executor on `graph`.
inline pipeline::StagesResult runPipelineOn(const ir::Graph& graph, pipeline::RunTarget target) {
  pipeline::Options o;
  o.run.target = target;
  o.run.host = hostTestOptions();
  o.run.host.measureTrace = false;
  pipeline::Artifacts given;
  given.original = std::make_shared<const ir::Graph>(graph);
  return pipeline::runStages(o, std::move(given), pipeline::Stage::Optimize, pipeline::Stage::Run);
}

}  // namespace rammer::testing

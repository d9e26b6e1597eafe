#pragma once
// Every sample model the generator writes: its file stem, what it is, the
// parameter count its paper publishes (for the summary and the tests) and
// the function that builds it.
#include <functional>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "samples/zoo/sample_config.h"

namespace rammer::samples {

struct SampleModel {
  std::string name;         // file stem: <name>.onnx
  std::string description;  // one line
  double publishedParams = 0;  // 0 when the paper gives no number
  std::function<ir::Graph(const SampleConfig&)> build;
  // Written only when asked for by name (rammer-samples --only): the
  // transformers are hundreds of MB each, more than every build should write.
  bool onDemand = false;
};

// In the order the generator writes them; the build writes those not onDemand.
std::vector<SampleModel> sampleCatalog();

// The catalog entry called `name`, or nullptr.
const SampleModel* findSample(const std::vector<SampleModel>& catalog, const std::string& name);

}  // namespace rammer::samples

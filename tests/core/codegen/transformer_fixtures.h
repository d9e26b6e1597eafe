#pragma once
// The transformer samples at one full-width layer (Swin: two per stage, so
// that half its blocks shift), built in memory and optimized as the pipeline
// does with attention fused (the flash-attention rKernels): what the codegen
// tests compile for CUDA and HIP. Needs rammer_samples linked.
#include <stdexcept>
#include <string>

#include "core/passes/pass_manager.h"
#include "samples/zoo/sample_catalog.h"

namespace rammer::testing {

inline ir::Graph oneLayerTransformer(const std::string& name) {
  const auto catalog = samples::sampleCatalog();
  const samples::SampleModel* m = samples::findSample(catalog, name);
  if (!m) throw std::runtime_error("no sample " + name);
  samples::SampleConfig config;
  config.transformerLayers = name == "swin_t" ? 2 : 1;
  ir::Graph g = m->build(config);
  passes::PassContext ctx;
  if (auto r = passes::standardPipeline({.fuseAttention = true}).run(g, ctx); !r) throw std::runtime_error(r.errorText());
  return g;
}

}  // namespace rammer::testing

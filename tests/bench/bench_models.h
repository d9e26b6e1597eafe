#pragma once
// A model file's optimized graph (batch 1) for the benchmarks, through the
// pipeline's Import and Optimize stages, as every driver gets it.
#include <filesystem>
#include <memory>

#include "core/pipeline/pipeline.h"

namespace rammer::bench {

inline ir::Result<std::shared_ptr<const ir::Graph>> optimizedModel(const std::filesystem::path& file,
                                                                   const passes::PassOptions& passes = {}) {
  pipeline::Options o;
  o.modelPath = file.string();
  o.import.batch = 1;
  o.passes = passes;
  pipeline::Pipeline p(std::move(o));
  if (const pipeline::Report r = p.run(pipeline::Stage::Import, pipeline::Stage::Optimize); !r.ok()) return r.errors();
  return p.artifacts().optimized;
}

}  // namespace rammer::bench

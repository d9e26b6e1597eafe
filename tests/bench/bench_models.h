#pragma once
// A model file's optimized graph (batch 1) for the benchmarks, through the
// pipeline's Import and Optimize stages, as every driver gets it.
#include <filesystem>
#include <memory>

#include "core/pipeline/pipeline.h"

namespace rammer::bench {

// Attention is fused or not as asked (the benchmarks time each graph's
// plans; Auto's choice between them is the pipeline's Schedule stage).
// Epilogues are not fused: the benchmarks plan every policy on one graph,
// and IOS and GraphTurbo take plain Convs.
inline ir::Result<std::shared_ptr<const ir::Graph>> optimizedModel(const std::filesystem::path& file,
                                                                   bool fuseAttention = false) {
  pipeline::Options o;
  o.modelPath = file.string();
  o.import.batch = 1;
  o.attention = fuseAttention ? pipeline::AttentionFusion::Fused : pipeline::AttentionFusion::Unfused;
  o.epilogues = pipeline::EpilogueFusion::Unfused;
  pipeline::Pipeline p(std::move(o));
  if (const pipeline::Report r = p.run(pipeline::Stage::Import, pipeline::Stage::Optimize); !r.ok()) return r.errors();
  return p.artifacts().optimized;
}

}  // namespace rammer::bench

#pragma once
// Runs passes in order, re-infers types after each pass that changed the
// graph, and keeps a record of every pass for display.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/passes/pass.h"

namespace rammer::passes {

struct PassRecord {
  std::string pass;
  bool changed = false;
  size_t nodesBefore = 0;
  size_t nodesAfter = 0;
  double milliseconds = 0;
  std::vector<std::string> notes;  // one line per change
};

class PassManager {
 public:
  void add(std::unique_ptr<Pass> pass);
  // Errors name the pass that left the graph invalid (a bug, never the
  // user's model: import already validated it).
  ir::Result<std::vector<PassRecord>> run(ir::Graph& graph, PassContext& ctx) const;
  std::vector<std::string> passNames() const;

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
};

struct PassOptions {
  // Fuse scaled dot-product attention into com.rammer::Attention (the
  // flash-attention rKernels). Whether that pays depends on the plan (their
  // registers and shared memory cost vEUs per SM), so the pipeline decides:
  // pipeline::AttentionFusion runs these passes both ways.
  bool fuseAttention = false;
  // Move element-wise nodes into the epilogue of the Conv, Gemm or MatMul
  // they read (EpilogueFusion). Off here: IOS's operator merge and
  // GraphTurbo's fused groups take plain Convs only, so the pipeline decides
  // per policy (pipeline::EpilogueFusion, --fuse-epilogues).
  bool fuseEpilogues = false;
  // Move each RNN step's recurrent MatMul into its cell (RecurrentCellFusion):
  // one operator per step at small batch. Off only to compare.
  bool fuseRecurrentCells = true;
};

// The pipeline behind `--optimize`.
PassManager standardPipeline(const PassOptions& options = {});

// "Conv: 20 -> 20, BatchNormalization: 20 -> 0, ..." op histogram of live nodes.
std::map<std::string, size_t> opHistogram(const ir::Graph& graph);

}  // namespace rammer::passes

#include "core/passes/pass_manager.h"

#include <chrono>

#include "core/ops/type_inference.h"
#include "core/passes/attention_fusion.h"
#include "core/passes/batchnorm_folding.h"
#include "core/passes/common_subexpression_elimination.h"
#include "core/passes/constant_folding.h"
#include "core/passes/conv_transpose_lowering.h"
#include "core/passes/dead_code_elimination.h"
#include "core/passes/einsum_lowering.h"
#include "core/passes/elementwise_fusion.h"
#include "core/passes/epilogue_fusion.h"
#include "core/passes/hardmax_lowering.h"
#include "core/passes/identity_removal.h"
#include "core/passes/instance_norm_lowering.h"
#include "core/passes/layernorm_fusion.h"
#include "core/passes/legacy_broadcast.h"
#include "core/passes/log_sum_exp_lowering.h"
#include "core/passes/lp_pool_lowering.h"
#include "core/passes/lrn_lowering.h"
#include "core/passes/recurrent_cell_fusion.h"
#include "core/passes/rnn_lowering.h"
#include "core/passes/shape_inference_pass.h"

namespace rammer::passes {

void PassManager::add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }

std::vector<std::string> PassManager::passNames() const {
  std::vector<std::string> out;
  for (const auto& p : passes_) out.push_back(p->name());
  return out;
}

ir::Result<std::vector<PassRecord>> PassManager::run(ir::Graph& graph, PassContext& ctx) const {
  std::vector<PassRecord> records;
  for (const auto& pass : passes_) {
    PassRecord rec;
    rec.pass = pass->name();
    rec.nodesBefore = graph.numNodes();
    auto t0 = std::chrono::steady_clock::now();
    PassResult changed = false;
    try {
      changed = pass->run(graph, ctx);
    } catch (const std::exception& e) {
      // Passes report failure as diagnostics; this guard turns a bug into one.
      return ir::makeError("pass " + rec.pass + " failed: internal error: " + e.what());
    }
    if (!changed) {
      std::vector<ir::Diagnostic> errs = changed.errors();
      for (auto& d : errs) d.message = "pass " + rec.pass + " failed: " + d.message;
      return errs;
    }
    rec.changed = *changed;
    if (rec.changed) {
      graph.compact();
      if (auto errs = ops::inferTypes(graph, {}, ctx.registry()); !errs.empty()) {
        for (auto& d : errs) d.message = "after pass " + rec.pass + ": " + d.message;
        return errs;
      }
    }
    rec.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    rec.nodesAfter = graph.numNodes();
    rec.notes = ctx.takeNotes();
    records.push_back(std::move(rec));
  }
  return records;
}

PassManager standardPipeline(const PassOptions& options) {
  PassManager pm;
  pm.add(std::make_unique<ShapeInferencePass>());
  pm.add(std::make_unique<IdentityRemoval>());
  pm.add(std::make_unique<LegacyBroadcast>());
  pm.add(std::make_unique<ConstantFolding>());
  pm.add(std::make_unique<CommonSubexpressionElimination>());
  pm.add(std::make_unique<LayerNormFusion>());
  if (options.fuseAttention) pm.add(std::make_unique<AttentionFusion>());
  pm.add(std::make_unique<RnnLowering>());
  if (options.fuseRecurrentCells) pm.add(std::make_unique<RecurrentCellFusion>());
  pm.add(std::make_unique<ConvTransposeLowering>());  // before the folding: a BatchNorm after it folds into the Conv
  pm.add(std::make_unique<BatchNormFolding>());
  pm.add(std::make_unique<InstanceNormLowering>());
  pm.add(std::make_unique<LogSumExpLowering>());
  pm.add(std::make_unique<LpPoolLowering>());
  pm.add(std::make_unique<LrnLowering>());
  pm.add(std::make_unique<HardmaxLowering>());
  pm.add(std::make_unique<EinsumLowering>());
  pm.add(std::make_unique<ElementwiseFusion>());
  if (options.fuseEpilogues) pm.add(std::make_unique<EpilogueFusion>());
  pm.add(std::make_unique<DeadCodeElimination>());
  return pm;
}

std::map<std::string, size_t> opHistogram(const ir::Graph& graph) {
  std::map<std::string, size_t> h;
  for (size_t i = 0; i < graph.numNodeSlots(); ++i) {
    const ir::Node& n = graph.node(static_cast<ir::NodeId>(i));
    if (!n.removed) ++h[n.opType];
  }
  return h;
}

}  // namespace rammer::passes

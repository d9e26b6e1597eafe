#pragma once
// Automatic attention fusion (AttentionFusion::Auto): the Optimize stage
// also builds the graph with attention fused where the model holds
// attention, and the Schedule stage plans both graphs with the same policy
// and keeps the plan the cost model predicts faster. Fusing is not always a
// win: the fused rKernel trades the score matrix's memory traffic for fewer,
// longer rTasks, which a small model may not fill the GPU with.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/passes/pass_manager.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "core/sim/cost_model.h"

namespace rammer::pipeline {

// Whether attention could be fused at all: it needs a Softmax and MatMuls.
bool mayHoldAttention(const ir::Graph& g);

// Whether the attention-fusion pass changed the graph it ran on.
bool fusedAttention(const std::vector<passes::PassRecord>& log);

// What weighing the fused plan against the unfused one found.
struct AttentionWeighing {
  std::optional<AttentionDecision> decision;  // both plans predicted
  std::string warning;                        // why not (the unfused plan stays); empty on a cancel
};

// Plans `fusedGraph` with `policy` and, when the cost model predicts it
// faster than `chosen`, replaces `chosen` with it. Returns at once, with
// neither a decision nor a warning, when `cancelled` says so.
AttentionWeighing weighFusedAttention(schedule::Plan& chosen, const schedule::Policy& policy,
                                      const device::DeviceSpec& device, std::shared_ptr<const ir::Graph> fusedGraph,
                                      std::shared_ptr<const sim::CostModel> model,
                                      const std::function<bool()>& cancelled);

}  // namespace rammer::pipeline

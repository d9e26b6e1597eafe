#include "core/pipeline/attention_choice.h"

#include <algorithm>
#include <map>

#include "core/sim/plan_figures.h"
#include "core/sim/simulator.h"

namespace rammer::pipeline {

bool mayHoldAttention(const ir::Graph& g) {
  const std::map<std::string, size_t> ops = passes::opHistogram(g);
  return ops.count("Softmax") && ops.count("MatMul");
}

bool fusedAttention(const std::vector<passes::PassRecord>& log) {
  return std::any_of(log.begin(), log.end(), [](const auto& r) { return r.pass == "attention-fusion" && r.changed; });
}

AttentionWeighing weighFusedAttention(schedule::Plan& chosen, const schedule::Policy& policy,
                                      const device::DeviceSpec& device, std::shared_ptr<const ir::Graph> fusedGraph,
                                      std::shared_ptr<const sim::CostModel> model,
                                      const std::function<bool()>& cancelled) {
  AttentionWeighing out;
  auto fused = policy.schedule(*fusedGraph, device, {});
  if (cancelled && cancelled()) return out;
  if (!fused) {
    out.warning = "attention left unfused: the fused graph could not be scheduled: " + fused.errorText();
    return out;
  }
  if (!fused->graph) fused->graph = std::move(fusedGraph);
  const sim::Simulator simulator(std::move(model));
  auto unfusedTrace = simulator.run(chosen);
  auto fusedTrace = simulator.run(*fused);
  if (!unfusedTrace || !fusedTrace) {
    out.warning = "attention left unfused: the plans could not be compared: " +
                  (unfusedTrace ? fusedTrace.errorText() : unfusedTrace.errorText());
    return out;
  }
  AttentionDecision d;
  d.unfusedUs = sim::figuresOf(chosen, &*unfusedTrace).predictedUs;
  d.fusedUs = sim::figuresOf(*fused, &*fusedTrace).predictedUs;
  d.fused = d.fusedUs < d.unfusedUs;
  if (d.fused) chosen = std::move(fused).value();
  out.decision = d;
  return out;
}

}  // namespace rammer::pipeline

#include "core/schedule/rtask_needs.h"

#include <set>

namespace rammer::schedule {

RTaskNeeds::RTaskNeeds(const std::vector<PlannedOp>& ops, const ir::Graph& graph) : ops_(&ops) {
  std::map<ir::NodeId, int32_t> opOf;
  for (size_t i = 0; i < ops.size(); ++i) opOf[ops[i].node] = static_cast<int32_t>(i);
  for (size_t c = 0; c < ops.size(); ++c) {
    const PlannedOp& consumer = ops[c];
    if (consumer.isView || !consumer.kernel.reads || consumer.node < 0 ||
        static_cast<size_t>(consumer.node) >= graph.numNodeSlots())
      continue;
    const ir::Node& n = graph.node(consumer.node);
    std::map<int32_t, std::vector<size_t>> direct;
    std::set<int32_t> whole;
    for (size_t s = 0; s < n.inputs.size(); ++s) {
      if (n.inputs[s] == ir::kNone) continue;
      const ir::NodeId pn = graph.value(n.inputs[s]).producer;
      auto it = opOf.find(pn);
      if (pn == ir::kNone || it == opOf.end()) continue;
      const PlannedOp& producer = ops[static_cast<size_t>(it->second)];
      if (producer.isView) {
        // Read through views: every producer behind them is needed whole.
        for (int32_t q : producer.producers) whole.insert(q);
      } else if (!producer.kernel.writes || graph.node(pn).output(0) != n.inputs[s]) {
        whole.insert(it->second);
      } else {
        direct[it->second].push_back(s);
      }
    }
    for (auto& [p, ss] : direct)
      if (!whole.count(p)) slots_[{static_cast<int32_t>(c), p}] = std::move(ss);
  }
  for (const auto& [pair, ss] : slots_) {
    const int32_t p = pair.second;
    if (writes_.count(p)) continue;
    const kernels::RKernel& k = ops[static_cast<size_t>(p)].kernel;
    std::vector<std::optional<kernels::TileSpan>> spans;
    for (int64_t t = 0; t < k.numRTasks; ++t) spans.push_back(k.writes(t));
    writes_.emplace(p, std::move(spans));
  }
}

std::optional<std::vector<int64_t>> RTaskNeeds::needed(RTask consumer, int32_t producer) const {
  auto it = slots_.find({consumer.op, producer});
  if (it == slots_.end()) return std::nullopt;
  const kernels::RKernel& c = (*ops_)[static_cast<size_t>(consumer.op)].kernel;
  const kernels::RKernel& p = (*ops_)[static_cast<size_t>(producer)].kernel;
  std::vector<kernels::TileSpan> reads;
  for (size_t s : it->second) {
    std::optional<kernels::TileSpan> r = c.reads(consumer.rtask, s);
    if (!r) return std::nullopt;
    reads.push_back(*r);
  }
  const auto cached = writes_.find(producer);
  std::vector<int64_t> out;
  for (int64_t t = 0; t < p.numRTasks; ++t) {
    const std::optional<kernels::TileSpan>& w = cached->second[static_cast<size_t>(t)];
    if (!w) return std::nullopt;
    for (const kernels::TileSpan& r : reads) {
      if (r.dim != w->dim) return std::nullopt;
      if (r.lo < w->hi && w->lo < r.hi) {
        out.push_back(t);
        break;
      }
    }
  }
  return out;
}

}  // namespace rammer::schedule

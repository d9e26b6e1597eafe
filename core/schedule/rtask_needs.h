#pragma once
// Rammer's Wait at rTask grain: which rTasks of a producer operator one
// rTask of its consumer needs. All of them, unless the consumer's rKernel
// says which range of the value its rTask reads and the producer's says
// which range each of its rTasks writes, along the same dim (GraphTurbo's
// instances: RKernel::reads / RKernel::writes); then only the producer
// rTasks whose ranges overlap. The plan builder waits on these, and the
// validator and the barrier analysis check exactly these, so a consumer
// instance waits only for the producer instances it reads.
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/schedule/plan.h"

namespace rammer::schedule {

class RTaskNeeds {
 public:
  RTaskNeeds() = default;
  // `graph` is the graph the plan's operators are nodes of (graphOf).
  RTaskNeeds(const std::vector<PlannedOp>& ops, const ir::Graph& graph);

  // The rTasks of operator `producer` that `consumer` needs, ascending;
  // nullopt: every one of them.
  std::optional<std::vector<int64_t>> needed(RTask consumer, int32_t producer) const;
  // Whether any consumer of the plan needs less than whole producers.
  bool any() const { return !slots_.empty(); }

 private:
  const std::vector<PlannedOp>* ops_ = nullptr;
  // (consumer, producer) -> the consumer's input slots that read the
  // producer's output 0 directly; pairs that read through a view, another
  // output or a kernel without ranges are not here.
  std::map<std::pair<int32_t, int32_t>, std::vector<size_t>> slots_;
  // What each of those producers' rTasks write, fetched once.
  std::map<int32_t, std::vector<std::optional<kernels::TileSpan>>> writes_;
};

}  // namespace rammer::schedule

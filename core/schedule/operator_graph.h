#pragma once
// The rOperator DAG of a plan: every live node in topological order, with
// views (Reshape, Flatten, ...) resolved so that an operator's producers are
// the operators that really compute its inputs. Views have no rTasks, so
// dependencies flow through them.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::schedule {

struct OperatorNode {
  ir::NodeId node = ir::kNone;
  std::string name;
  std::string opType;
  bool isView = false;
  std::vector<int32_t> producers;  // non-view ops read through any chain of views; sorted, unique
  std::vector<int32_t> consumers;  // non-view ops reading this one (through views); sorted, unique
};

struct OperatorGraph {
  std::vector<OperatorNode> ops;  // topological order; index = Plan::ops index
  std::map<std::string, int32_t> byName;

  std::optional<int32_t> find(const std::string& name) const;
  // The BFS fringe of the non-view operators: wave i holds the operators
  // whose producers all lie in waves < i (Rammer's "ready" operators).
  std::vector<std::vector<int32_t>> waves() const;
};

// `isView(node)` says which nodes move no data (decided by the kernel library).
ir::Result<OperatorGraph> buildOperatorGraph(const ir::Graph& graph, const std::function<bool(ir::NodeId)>& isView);

}  // namespace rammer::schedule

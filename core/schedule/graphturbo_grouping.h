#pragma once
// GraphTurbo's grouping (Zhao et al., OSDI'23) on the vDevice: from each
// sink, producers join its group while the rules hold --
//   - the producer's only readers are in the group (one output leaves it);
//   - the consumer reads the producer along a range of the producer's own
//     split dim (SplitInfo, core/ops/group/split_info.h), never whole;
//   - some number of instances keeps one instance's intermediates within
//     the fast-memory budget (a vEU's shared memory) and the recomputed
//     halos within `maxRecompute`;
//   - the cost model predicts the grown group no slower than the group and
//     the producer apart.
// No cycle between groups can form: a path that left a group through its
// sink's output and came back would be a cycle in the graph. The instance
// count starts at the smallest that fits the budget and doubles while the
// cost model predicts a gain from more instances (more vEUs busy).
#include <functional>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"
#include "core/ops/group/fused_group.h"

namespace rammer::schedule {

struct GroupingOptions {
  int64_t budgetBytes = 48 * 1024;  // fast memory one instance may use
  double maxRecompute = 1.5;        // elements computed over all instances / elements of the outputs
  // Operators one group may hold. A group grows one producer at a time and
  // every step re-evaluates all its members, so growth is quadratic in the
  // group's size: unbounded, a chain of 10,000 element-wise nodes took 25 s.
  size_t maxMembers = 16;
  // Operators never grouped (a schedule edit names them).
  std::function<bool(ir::NodeId)> excluded;
  // Predicted microseconds of a node on its own (its best rKernel) and of a
  // candidate group's rKernel; empty: groups grow without a cost check.
  std::function<double(ir::NodeId)> soloUs;
  std::function<double(const kernels::RKernel&)> kernelUs;
  int64_t opset = 17;
};

struct GroupChoice {
  std::vector<ir::NodeId> members;  // producers first, sink last
  ops::FusedGroupSpec spec;          // split dims, piece, wiring: the FusedGroup node's attributes
  std::vector<ir::ValueId> inputs;   // the group's inputs (spec refs >= 0 index this)
  int64_t instances = 0;
  int64_t smallestFit = 0;           // the smallest instance count that fits the budget
  int64_t workingSetBytes = 0;
  double recompute = 1;
  double groupUs = 0, apartUs = 0;   // predicted: as one group, and its members apart
  std::string stop;                  // why it grew no further
};

struct Grouping {
  std::vector<GroupChoice> groups;  // two or more members each
  // Operators that head no group, with why ("'conv3': no producer can join: ...").
  std::vector<std::string> alone;
};

// Groups of `graph` (shapes known, after the passes). Nodes of no group
// stay as they are.
Grouping findGroups(const ir::Graph& graph, const GroupingOptions& options);

// A copy of `graph` with each group replaced by one FusedGroup node named
// "<sink>.group" that writes the sink's output value; every other value
// keeps its id.
ir::Result<ir::Graph> applyGroups(const ir::Graph& graph, const Grouping& grouping);

}  // namespace rammer::schedule

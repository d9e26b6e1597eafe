#pragma once
// A model at a glance: its interface, what it is made of and what it costs.
// Pure data computed from an ir::Graph (the CLI prints it, the GUI shows it);
// the human-unit helpers only format, they never print.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "core/ops/op_registry.h"

namespace rammer::ops {

struct ValueSummary {
  std::string name;
  ir::TensorType type;
  std::vector<std::string> dimParams;  // symbolic dim names ("" when none)
};

struct ModelSummary {
  std::string name;
  int64_t opset = 0;
  std::vector<ValueSummary> inputs;   // real graph inputs, in order
  std::vector<ValueSummary> outputs;  // graph outputs, in order
  size_t nodeCount = 0;               // live nodes
  // (op type, count): most frequent first, ties by name.
  std::vector<std::pair<std::string, int64_t>> opHistogram;
  // (category name, count) over the same nodes, same order rule; ops the
  // registry does not know count as "unsupported".
  std::vector<std::pair<std::string, int64_t>> categoryCounts;
  // Constant tensors with no producer (initializers) that live nodes use.
  int64_t parameterCount = 0;
  int64_t parameterBytes = 0;
  // Sum of OpDef::flops over nodes whose output types are fully known.
  double flops = 0;
  // Nodes left out of `flops`: unknown shapes, unsupported op or a failing
  // count. Zero means the total is exact (as far as the ops model it).
  size_t flopsUnknownNodes = 0;
};

ModelSummary summarize(const ir::Graph& graph, const OpRegistry& registry = OpRegistry::builtin());

// "1.82 GFLOP", "512 FLOP".
std::string formatFlops(double flops);
// "44.7 MB", "512 B" (decimal units, like the FLOPs).
std::string formatBytes(int64_t bytes);
// "11.7 M", "950".
std::string formatCount(int64_t count);

}  // namespace rammer::ops

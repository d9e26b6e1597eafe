#pragma once
// What the lowering passes write into a graph in place of the node they
// lower: constants, nodes with one output, Reshape views. Names start from
// a base (the lowered node's name) so a pass log and a schedule edit can
// tell where a node came from; value names are made unique.
#include <string>
#include <vector>

#include "core/ir/graph.h"

namespace rammer::passes {

class NodeWriter {
 public:
  NodeWriter(ir::Graph& graph, std::string base) : graph_(graph), base_(std::move(base)) {}

  ir::ValueId constant(const std::string& suffix, ir::Tensor value);
  ir::ValueId scalar(const std::string& suffix, float value);                      // float32, rank 0
  ir::ValueId ints(const std::string& suffix, const std::vector<int64_t>& values);  // int64, 1-D
  // A node `op` with one output: a new value of `type`, or `out` when given
  // (the lowered node's own output, so its readers need no rewiring).
  ir::ValueId node(const std::string& suffix, const std::string& op, std::vector<ir::ValueId> inputs,
                   const ir::TensorType& type, ir::Attributes attrs = {}, ir::ValueId out = ir::kNone);
  // `v` seen as `shape`: a Reshape, which the kernel library runs as a view.
  ir::ValueId reshape(const std::string& suffix, ir::ValueId v, const ir::Shape& shape, ir::ValueId out = ir::kNone);

 private:
  ir::Graph& graph_;
  std::string base_;
};

}  // namespace rammer::passes

#pragma once
// Builds an ir::Graph node by node, inferring each node's output types as it
// is added (with the ops library's own inference), so model code can ask for
// shapes while it builds and a wrong layer fails at once, naming the node.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "samples/builder/batch_dim.h"
#include "samples/builder/weight_rng.h"

namespace rammer::samples {

class ModelBuilder {
 public:
  ModelBuilder(std::string graphName, int64_t opset, uint32_t seed);


  WeightRng& rng() { return rng_; }
  const ir::Graph& graph() const { return g_; }
  // The finished graph; the builder is empty afterwards.
  ir::Graph take() { return std::move(g_); }

  // A float32 graph input; `dimParams` names symbolic dims ("" for none).
  ir::ValueId input(const std::string& name, ir::Shape shape, std::vector<std::string> dimParams = {});
  // A named constant (initializer).
  ir::ValueId constant(const std::string& name, ir::Tensor value);
  // An int64 vector constant shared by every node that needs the same values
  // (Squeeze axes, Reshape shapes).
  ir::ValueId ints(const std::vector<int64_t>& values);

  // Adds a node named `name` whose outputs are named `name` (one output) or
  // `name` + "." + outputNames[k]; returns the outputs. Throws
  // std::runtime_error naming the node when inference rejects it.
  std::vector<ir::ValueId> node(const std::string& opType, const std::string& name, std::vector<ir::ValueId> inputs,
                                ir::Attributes attrs = {}, const std::vector<std::string>& outputNames = {});
  ir::ValueId op(const std::string& opType, const std::string& name, std::vector<ir::ValueId> inputs,
                 ir::Attributes attrs = {}) {
    return node(opType, name, std::move(inputs), std::move(attrs))[0];
  }
  // A graph output whose dim `batchAxis` is the batch: it gets the symbolic
  // name kBatchDim like the inputs, so a symbolic-batch file is consistent.
  void output(ir::ValueId v, size_t batchAxis);

  const ir::Shape& shape(ir::ValueId v) const { return g_.value(v).type.shape; }
  int64_t channels(ir::ValueId v) const { return shape(v).at(1); }  // NCHW

 private:
  ir::Graph g_;
  WeightRng rng_;
  std::map<std::vector<int64_t>, ir::ValueId> ints_;
};

// Attribute list literal: attrs({{"axis", int64_t{1}}}).
ir::Attributes attrs(std::initializer_list<std::pair<const char*, ir::AttrValue>> kv);

}  // namespace rammer::samples

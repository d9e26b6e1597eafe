#include "core/passes/node_writer.h"

namespace rammer::passes {

ir::ValueId NodeWriter::constant(const std::string& suffix, ir::Tensor value) {
  const ir::ValueId v = graph_.addValue(graph_.uniqueValueName(base_ + suffix), value.type());
  graph_.value(v).constant = std::move(value);
  return v;
}

ir::ValueId NodeWriter::scalar(const std::string& suffix, float value) {
  return constant(suffix, ir::Tensor::fromVector<float>({}, {value}));
}

ir::ValueId NodeWriter::ints(const std::string& suffix, const std::vector<int64_t>& values) {
  return constant(suffix, ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(values.size())}, values));
}

ir::ValueId NodeWriter::node(const std::string& suffix, const std::string& op, std::vector<ir::ValueId> inputs,
                             const ir::TensorType& type, ir::Attributes attrs, ir::ValueId out) {
  if (out == ir::kNone) out = graph_.addValue(graph_.uniqueValueName(base_ + suffix), type);
  ir::Node n;
  n.name = base_ + suffix;
  n.opType = op;
  n.inputs = std::move(inputs);
  n.outputs = {out};
  n.attrs = std::move(attrs);
  graph_.addNode(std::move(n));
  return out;
}

ir::ValueId NodeWriter::reshape(const std::string& suffix, ir::ValueId v, const ir::Shape& shape, ir::ValueId out) {
  const ir::TensorType type{graph_.value(v).type.dtype, shape, true};
  return node(suffix, "Reshape", {v, ints(suffix + ".shape", shape)}, type, {}, out);
}

}  // namespace rammer::passes

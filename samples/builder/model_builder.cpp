#include "samples/builder/model_builder.h"

#include <stdexcept>

#include "core/ops/op_registry.h"
#include "core/ops/type_inference.h"

namespace rammer::samples {

ModelBuilder::ModelBuilder(std::string graphName, int64_t opset, uint32_t seed) : rng_(seed) {
  g_.name = std::move(graphName);
  g_.opsetVersion = opset;
}

ir::ValueId ModelBuilder::input(const std::string& name, ir::Shape shape, std::vector<std::string> dimParams) {
  dimParams.resize(shape.size());
  const ir::ValueId v = g_.addValue(name, {ir::DType::Float32, std::move(shape), true});
  g_.value(v).dimParams = std::move(dimParams);
  g_.addInput(v);
  return v;
}

void ModelBuilder::output(ir::ValueId v, size_t batchAxis) {
  ir::Value& value = g_.value(v);
  value.dimParams.assign(value.type.shape.size(), std::string());
  value.dimParams.at(batchAxis) = kBatchDim;
  g_.addOutput(v);
}

ir::ValueId ModelBuilder::constant(const std::string& name, ir::Tensor value) {
  const ir::ValueId v = g_.addValue(name, value.type());
  g_.value(v).constant = std::move(value);
  return v;
}

ir::ValueId ModelBuilder::ints(const std::vector<int64_t>& values) {
  if (auto it = ints_.find(values); it != ints_.end()) return it->second;
  std::string name = "const.i64";
  for (int64_t x : values) name += (x < 0 ? "_m" : "_") + std::to_string(x < 0 ? -x : x);
  const ir::ValueId v =
      constant(name, ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(values.size())}, values));
  ints_.emplace(values, v);
  return v;
}

std::vector<ir::ValueId> ModelBuilder::node(const std::string& opType, const std::string& name,
                                            std::vector<ir::ValueId> inputs, ir::Attributes attributes,
                                            const std::vector<std::string>& outputNames) {
  const ops::OpDef* def = ops::OpRegistry::builtin().find("", opType);
  if (!def) throw std::runtime_error("node '" + name + "': the ops library has no " + opType);
  ir::Node n;
  n.name = name;
  n.opType = opType;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attributes);
  if (outputNames.empty()) n.outputs.push_back(g_.addValue(name));
  for (const std::string& out : outputNames) n.outputs.push_back(g_.addValue(name + "." + out));

  std::vector<ir::TensorType> types;
  try {
    types = def->infer(ops::makeContext(g_, n, {}));
  } catch (const std::exception& e) {
    throw std::runtime_error("node '" + name + "' (" + opType + "): " + e.what());
  }
  if (types.size() < n.outputs.size())
    throw std::runtime_error("node '" + name + "': " + opType + " inferred too few outputs");
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    if (!types[i].fullyKnown())
      throw std::runtime_error("node '" + name + "': output " + std::to_string(i) + " has no concrete shape");
    g_.value(n.outputs[i]).type = types[i];
  }
  std::vector<ir::ValueId> outs = n.outputs;
  g_.addNode(std::move(n));
  return outs;
}

ir::Attributes attrs(std::initializer_list<std::pair<const char*, ir::AttrValue>> kv) {
  ir::Attributes a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

}  // namespace rammer::samples

#include "core/onnx/proto_attributes.h"

#include "core/onnx/proto_tensor.h"

namespace rammer::onnx_import {

namespace {

using onnx::AttributeProto;

// Very old exporters leave `type` unset; the populated field tells the kind.
AttributeProto::AttributeType kindOf(const AttributeProto& a) {
  if (a.type() != AttributeProto::UNDEFINED) return a.type();
  if (a.has_f()) return AttributeProto::FLOAT;
  if (a.has_i()) return AttributeProto::INT;
  if (a.has_s()) return AttributeProto::STRING;
  if (a.has_t()) return AttributeProto::TENSOR;
  if (a.has_g()) return AttributeProto::GRAPH;
  if (a.floats_size()) return AttributeProto::FLOATS;
  if (a.ints_size()) return AttributeProto::INTS;
  if (a.strings_size()) return AttributeProto::STRINGS;
  if (a.tensors_size()) return AttributeProto::TENSORS;
  if (a.graphs_size()) return AttributeProto::GRAPHS;
  return AttributeProto::UNDEFINED;
}

}  // namespace

std::vector<std::string> convertAttributes(onnx::NodeProto& node, const std::string& nodeName,
                                           const std::filesystem::path& baseDir, ir::Attributes& out) {
  std::vector<std::string> errors;
  bool subgraphReported = false;
  for (AttributeProto& a : *node.mutable_attribute()) {
    const std::string& name = a.name();
    switch (kindOf(a)) {
      case AttributeProto::FLOAT: out.set(name, a.f()); break;
      case AttributeProto::INT: out.set(name, static_cast<int64_t>(a.i())); break;
      case AttributeProto::STRING: out.set(name, a.s()); break;
      case AttributeProto::FLOATS: out.set(name, std::vector<float>(a.floats().begin(), a.floats().end())); break;
      case AttributeProto::INTS: out.set(name, std::vector<int64_t>(a.ints().begin(), a.ints().end())); break;
      case AttributeProto::STRINGS:
        out.set(name, std::vector<std::string>(a.strings().begin(), a.strings().end()));
        break;
      case AttributeProto::TENSOR: {
        auto t = tensorFromProto(*a.mutable_t(), baseDir, nodeName + "." + name);
        if (t) out.set(name, std::move(t).value());
        else errors.push_back("attribute '" + name + "': " + t.errors().front().message);
        break;
      }
      case AttributeProto::GRAPH:
      case AttributeProto::GRAPHS:
        if (!subgraphReported)
          errors.push_back("subgraph attributes are not supported (node '" + nodeName + "', op " + node.op_type() +
                           ", attribute '" + name + "')");
        subgraphReported = true;
        break;
      case AttributeProto::UNDEFINED:
        errors.push_back("attribute '" + name + "' has no value");
        break;
      default:
        errors.push_back("attribute '" + name + "' is of kind " + AttributeProto::AttributeType_Name(a.type()) +
                         ", which is not supported");
        break;
    }
  }
  return errors;
}

}  // namespace rammer::onnx_import

#include "core/onnx/exporter.h"

#include <climits>
#include <fstream>
#include <set>
#include <stdexcept>
#include <system_error>
#include <type_traits>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>

#include "core/onnx/proto_tensor.h"

namespace rammer::onnx_export {

namespace fs = std::filesystem;
namespace io = google::protobuf::io;

namespace {

using ExportError = std::runtime_error;

void setType(onnx::ValueInfoProto& info, const ir::Value& v, bool symbolicDims) {
  if (v.type.dtype == ir::DType::Undefined) return;  // unknown: a reader infers it
  auto* tt = info.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(v.type.dtype));
  if (!v.type.rankKnown) return;
  auto* shape = tt->mutable_shape();  // present even for scalars: rank 0 is known
  for (size_t i = 0; i < v.type.shape.size(); ++i) {
    auto* dim = shape->add_dim();
    const std::string param = i < v.dimParams.size() ? v.dimParams[i] : std::string();
    const int64_t extent = v.type.shape[i];
    if (!param.empty() && (extent < 0 || symbolicDims)) dim->set_dim_param(param);
    else if (extent >= 0) dim->set_dim_value(extent);
    // else: an unknown, unnamed dim stays empty
  }
}

void setAttribute(onnx::AttributeProto& a, const std::string& name, const ir::AttrValue& value) {
  using onnx::AttributeProto;
  a.set_name(name);
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          a.set_type(AttributeProto::INT);
          a.set_i(x);
        } else if constexpr (std::is_same_v<T, float>) {
          a.set_type(AttributeProto::FLOAT);
          a.set_f(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          a.set_type(AttributeProto::STRING);
          a.set_s(x);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          a.set_type(AttributeProto::INTS);
          for (int64_t i : x) a.add_ints(i);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          a.set_type(AttributeProto::FLOATS);
          for (float f : x) a.add_floats(f);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          a.set_type(AttributeProto::STRINGS);
          for (const std::string& s : x) a.add_strings(s);
        } else {
          static_assert(std::is_same_v<T, ir::Tensor>);
          a.set_type(AttributeProto::TENSOR);
          *a.mutable_t() = onnx_import::tensorToProto(x, {});
        }
      },
      value);
}

class ModelWriter {
 public:
  ModelWriter(const ir::Graph& graph, const ExportOptions& options) : graph_(graph), opt_(options) {}

  onnx::ModelProto build() {
    if (graph_.opsetVersion <= 0) throw ExportError("the graph has no opset version");
    auto order = graph_.topologicalOrder();
    if (!order) throw ExportError(order.errorText());

    onnx::ModelProto model;
    model.set_ir_version(opt_.irVersion > 0 ? opt_.irVersion : irVersionForOpset(graph_.opsetVersion));
    model.set_producer_name(opt_.producerName);
    model.set_producer_version(opt_.producerVersion);
    onnx::GraphProto& graph = *model.mutable_graph();
    graph.set_name(graph_.name.empty() ? std::string("graph") : graph_.name);

    std::set<std::string> domains;  // sorted: a stable opset_import order
    for (ir::NodeId id : *order) {
      const ir::Node& n = graph_.node(id);
      writeNode(*graph.add_node(), n);
      if (!n.domain.empty() && n.domain != "ai.onnx") domains.insert(n.domain);
    }
    auto* def = model.add_opset_import();
    def->set_domain("");
    def->set_version(graph_.opsetVersion);
    for (const std::string& d : domains) {
      auto* o = model.add_opset_import();
      o->set_domain(d);
      auto it = opt_.domainVersions.find(d);
      o->set_version(it != opt_.domainVersions.end() ? it->second : 1);
    }

    for (ir::ValueId v : graph_.inputs()) declare(*graph.add_input(), v);
    for (ir::ValueId v : graph_.outputs()) declare(*graph.add_output(), v);
    writeInitializers(graph);
    if (opt_.valueInfo) writeValueInfo(graph, *order);
    return model;
  }

 private:
  const std::string& nameOf(ir::ValueId id) const {
    const ir::Value& v = graph_.value(id);
    if (v.name.empty()) throw ExportError("a value without a name is used (value id " + std::to_string(id) + ")");
    return v.name;
  }

  void declare(onnx::ValueInfoProto& info, ir::ValueId id) {
    info.set_name(nameOf(id));
    setType(info, graph_.value(id), opt_.symbolicDims);
  }

  void writeNode(onnx::NodeProto& p, const ir::Node& n) {
    if (!n.name.empty()) p.set_name(n.name);
    p.set_op_type(n.opType);
    if (!n.domain.empty() && n.domain != "ai.onnx") p.set_domain(n.domain);
    // Omitted optional slots are empty names, as ONNX spells them.
    for (ir::ValueId v : n.inputs) p.add_input(v == ir::kNone ? std::string() : nameOf(v));
    for (ir::ValueId v : n.outputs) p.add_output(v == ir::kNone ? std::string() : nameOf(v));
    for (const auto& [name, value] : n.attrs.all()) setAttribute(*p.add_attribute(), name, value);  // std::map: sorted
  }

  // Constants no node produces and something uses: the weights. In value-id
  // order, which is creation order, so the file is stable.
  void writeInitializers(onnx::GraphProto& graph) {
    for (size_t i = 0; i < graph_.numValues(); ++i) {
      const auto id = static_cast<ir::ValueId>(i);
      const ir::Value& v = graph_.value(id);
      if (!v.constant || v.producer != ir::kNone) continue;
      if (v.consumers.empty() && !v.isGraphOutput) continue;
      *graph.add_initializer() = onnx_import::tensorToProto(*v.constant, nameOf(id));
    }
  }

  // Typed intermediate values (node outputs that are not graph outputs).
  void writeValueInfo(onnx::GraphProto& graph, const std::vector<ir::NodeId>& order) {
    for (ir::NodeId id : order)
      for (ir::ValueId v : graph_.node(id).outputs)
        if (v != ir::kNone && !graph_.value(v).isGraphOutput && graph_.value(v).type.dtype != ir::DType::Undefined)
          declare(*graph.add_value_info(), v);
  }

  const ir::Graph& graph_;
  const ExportOptions& opt_;
};

// Deterministic serialisation: protobuf promises byte-stable output only in
// this mode (map fields would otherwise follow hash order).
bool serialize(const onnx::ModelProto& model, io::ZeroCopyOutputStream& stream) {
  io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  return model.SerializeToCodedStream(&coded) && !coded.HadError();
}

onnx::ModelProto buildChecked(const ir::Graph& graph, const ExportOptions& options) {
  onnx::ModelProto model = ModelWriter(graph, options).build();
  const size_t bytes = model.ByteSizeLong();
  if (bytes > static_cast<size_t>(INT_MAX))
    throw ExportError("the model needs " + std::to_string(bytes) + " bytes, over protobuf's 2 GiB limit");
  return model;
}

}  // namespace

int64_t irVersionForOpset(int64_t opset) {
  // ONNX's release table (Versioning.md in the onnx repository's docs): opset -> IR version shipped with it.
  if (opset <= 8) return 3;
  if (opset == 9) return 4;
  if (opset == 10) return 5;
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  return 11;
}

ir::Result<std::string> exportModelToBytes(const ir::Graph& graph, const ExportOptions& options) {
  try {
    const onnx::ModelProto model = buildChecked(graph, options);
    std::string bytes;
    {
      io::StringOutputStream stream(&bytes);
      if (!serialize(model, stream)) return ir::makeError("serialising the model failed");
    }
    return bytes;
  } catch (const std::exception& e) {
    return ir::makeError(e.what());
  }
}

std::vector<ir::Diagnostic> exportModel(const ir::Graph& graph, const fs::path& file, const ExportOptions& options) {
  const std::string shown = file.string();
  try {
    const onnx::ModelProto model = buildChecked(graph, options);
    fs::path tmp = file;
    tmp += ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) return {ir::makeError("cannot open the file for writing", {}, shown)};
      bool ok = false;
      {
        io::OstreamOutputStream stream(&out);
        ok = serialize(model, stream);
      }  // flushes the stream's buffer into `out`
      out.close();
      if (!ok || !out) {
        std::error_code ec;
        fs::remove(tmp, ec);
        return {ir::makeError("writing the model failed (disk full?)", {}, shown)};
      }
    }
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (ec) {
      const std::string why = ec.message();
      fs::remove(tmp, ec);
      return {ir::makeError("cannot move the written model into place: " + why, {}, shown)};
    }
    return {};
  } catch (const std::exception& e) {
    return {ir::makeError(e.what(), {}, shown)};
  }
}

}  // namespace rammer::onnx_export

#include "app/cli/json_output.h"

namespace rammer::cli {

namespace {
std::string dimParam(const std::vector<std::string>& dimParams, size_t i) {
  return i < dimParams.size() ? dimParams[i] : std::string();
}
}  // namespace

Json shapeToJson(const ir::TensorType& type, const std::vector<std::string>& dimParams) {
  if (!type.rankKnown) return nullptr;
  Json dims = Json::array();
  for (size_t i = 0; i < type.shape.size(); ++i) {
    if (type.shape[i] >= 0) {
      dims.push_back(type.shape[i]);
    } else if (std::string p = dimParam(dimParams, i); !p.empty()) {
      dims.push_back(p);
    } else {
      dims.push_back(nullptr);
    }
  }
  return dims;
}

Json valueToJson(const ops::ValueSummary& v) {
  Json j;
  j["name"] = v.name;
  j["dtype"] = std::string(ir::dtypeName(v.type.dtype));
  j["shape"] = shapeToJson(v.type, v.dimParams);
  return j;
}

Json summaryToJson(const ops::ModelSummary& s, const std::string& modelPath) {
  Json j;
  j["model"] = modelPath;
  j["graph_name"] = s.name;
  j["opset"] = s.opset;
  j["inputs"] = Json::array();
  for (const auto& v : s.inputs) j["inputs"].push_back(valueToJson(v));
  j["outputs"] = Json::array();
  for (const auto& v : s.outputs) j["outputs"].push_back(valueToJson(v));
  j["nodes"] = s.nodeCount;
  j["ops"] = Json::object();
  for (const auto& [type, count] : s.opHistogram) j["ops"][type] = count;
  j["categories"] = Json::object();
  for (const auto& [cat, count] : s.categoryCounts) j["categories"][cat] = count;
  j["parameters"] = s.parameterCount;
  j["parameter_bytes"] = s.parameterBytes;
  j["flops"] = s.flops;
  j["flops_unknown_nodes"] = s.flopsUnknownNodes;
  return j;
}

std::string shapeText(const ir::TensorType& type, const std::vector<std::string>& dimParams) {
  if (!type.rankKnown) return "[*]";
  std::string out = "[";
  for (size_t i = 0; i < type.shape.size(); ++i) {
    if (i) out += ", ";
    if (type.shape[i] >= 0) {
      out += std::to_string(type.shape[i]);
    } else {
      std::string p = dimParam(dimParams, i);
      out += p.empty() ? "?" : p;
    }
  }
  return out + "]";
}

}  // namespace rammer::cli

#include "core/ops/op_registry.h"

namespace rammer::ops {

std::string_view categoryName(OpCategory c) {
  switch (c) {
    case OpCategory::Convolution: return "convolution";
    case OpCategory::MatMul: return "matmul";
    case OpCategory::Elementwise: return "elementwise";
    case OpCategory::Activation: return "activation";
    case OpCategory::Normalization: return "normalization";
    case OpCategory::Pooling: return "pooling";
    case OpCategory::Reduction: return "reduction";
    case OpCategory::DataMovement: return "data-movement";
    case OpCategory::Recurrent: return "recurrent";
    case OpCategory::Constant: return "constant";
    case OpCategory::Other: return "other";
  }
  return "other";
}

const OpRegistry& OpRegistry::builtin() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerElementwiseOps(r);
    registerUnaryOps(r);
    registerTensorOps(r);
    registerReduceOps(r);
    registerScanOps(r);
    registerEinsumOps(r);
    registerAttentionOps(r);
    registerConvOps(r);
    registerMatMulOps(r);
    registerPoolOps(r);
    registerNormOps(r);
    registerRecurrentOps(r);
    registerFusedOps(r);
    registerCellOps(r);
    registerFusedGroupOps(r);
    return r;
  }();
  return registry;
}

namespace {
std::string key(std::string_view domain, std::string_view type) {
  if (domain == "ai.onnx") domain = "";
  return std::string(domain) + "::" + std::string(type);
}
}  // namespace

void OpRegistry::add(OpDef def) {
  std::string k = key(def.domain, def.type);
  ops_.insert_or_assign(std::move(k), std::move(def));
}

const OpDef* OpRegistry::find(std::string_view domain, std::string_view type) const {
  auto it = ops_.find(key(domain, type));
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::types() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : ops_) out.push_back(v.domain.empty() ? v.type : v.domain + "." + v.type);
  return out;
}

}  // namespace rammer::ops

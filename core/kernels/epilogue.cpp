#include "core/kernels/epilogue.h"

#include <algorithm>

#include "core/ops/math/fused_epilogue.h"
#include "core/ops/op_context.h"
#include "core/ops/op_registry.h"

namespace rammer::kernels {

Epilogue Epilogue::of(const ir::Graph& graph, const ir::Node& node) {
  Epilogue e;
  const ops::EpilogueOp* op = node.domain == ops::kRammerDomain ? ops::epilogueOpOf(node.opType) : nullptr;
  if (!op) return e;
  e.present_ = true;
  e.expr_ = ops::parseEpilogue(node, node.inputs.size() - std::min(node.inputs.size(), op->arity));
  for (size_t slot = op->arity; slot < node.inputs.size(); ++slot) {
    const ir::ValueId v = node.inputs[slot];
    if (v == ir::kNone) throw ops::OpError("epilogue input " + std::to_string(slot) + " is missing");
    e.slots_.push_back(slot);
    e.scalar_.push_back(ir::numElements(graph.value(v).type.shape) == 1);
  }
  return e;
}

std::string Epilogue::cudaStore(const std::string& value, const std::string& index) const {
  if (!present_) return "out0[" + index + "] = " + value + ";";
  std::vector<std::string> inputs{"p_"};
  for (size_t k = 0; k < slots_.size(); ++k)
    inputs.push_back("in" + std::to_string(slots_[k]) + (scalar_[k] ? "[0]" : "[o_]"));
  return "{\n      const auto o_ = " + index + ";\n      const float p_ = " + value + ";\n" +
         expr_.toCuda(inputs, "out0[o_]", "      ") + "    }";
}

double Epilogue::bytesPerOutput() const {
  double b = 0;
  for (bool s : scalar_) b += s ? 0.0 : 4.0;
  return b;
}

}  // namespace rammer::kernels

#include "core/kernels/epilogue.h"

#include <algorithm>

#include "core/kernels/instantiation.h"
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

void Epilogue::instantiate(GemmInstance& g) const {
  if (!present_) return;
  std::vector<std::string> xs{"x0"};
  for (size_t k = 0; k < slots_.size(); ++k) {
    xs.push_back("x" + std::to_string(k + 1));
    g.extras.push_back("in" + std::to_string(slots_[k]));
    g.reads.emplace_back(scalar_[k] ? "RammerReadScalar" : "RammerReadSame");
  }
  g.locals += cudaExpressionOp("Epilogue", xs.size(), expr_.toCuda(xs, "const float y", "      "), "y");
  g.epilogue = "RammerEpilogue<Epilogue>";
}

double Epilogue::bytesPerOutput() const {
  double b = 0;
  for (bool s : scalar_) b += s ? 0.0 : 4.0;
  return b;
}

}  // namespace rammer::kernels

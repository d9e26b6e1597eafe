#include "core/passes/shape_inference_pass.h"

#include "core/ops/type_inference.h"

namespace rammer::passes {

PassResult ShapeInferencePass::run(ir::Graph& graph, PassContext& ctx) {
  std::vector<ir::TensorType> before;
  for (size_t i = 0; i < graph.numValues(); ++i) before.push_back(graph.value(static_cast<ir::ValueId>(i)).type);
  if (auto errs = ops::inferTypes(graph, {}, ctx.registry()); !errs.empty()) return errs;
  size_t refined = 0;
  for (size_t i = 0; i < graph.numValues(); ++i)
    if (!(graph.value(static_cast<ir::ValueId>(i)).type == before[i])) ++refined;
  if (refined) ctx.note("refined the type of " + std::to_string(refined) + " values");
  return false;  // types only: the structure is unchanged
}

}  // namespace rammer::passes

// FusedGroup (domain com.rammer): a GraphTurbo group (fused_group.h). The
// reference runs its members one after another on whole tensors, with each
// member's own reference implementation, so a plan's rewritten graph runs
// on the reference executor exactly like the graph it came from.
#include "core/ops/group/fused_group.h"
#include "core/ops/op_registry.h"
#include "core/ops/op_compute.h"

namespace rammer::ops {

namespace {

std::vector<ir::TensorType> inputTypesOf(const OpContext& ctx) {
  std::vector<ir::TensorType> types;
  for (size_t i = 0; i < ctx.numInputs(); ++i) types.push_back(ctx.has(i) ? ctx.type(i) : ir::TensorType{});
  return types;
}

bool allKnown(const std::vector<ir::TensorType>& types) {
  for (const ir::TensorType& t : types)
    if (t.dtype != ir::DType::Undefined && !t.fullyKnown()) return false;
  return true;
}

std::vector<ir::TensorType> inferGroup(const OpContext& ctx) {
  const FusedGroupSpec spec = decodeGroup(ctx.attrs(), ctx.numInputs());
  const std::vector<ir::TensorType> types = inputTypesOf(ctx);
  if (allKnown(types)) GroupGeometry(spec, types, ctx.opset());  // names what does not fit
  return {ir::TensorType{ir::DType::Float32, spec.members.back().shape}};
}

std::vector<ir::Tensor> computeGroup(const OpContext& ctx) {
  const FusedGroupSpec spec = decodeGroup(ctx.attrs(), ctx.numInputs());
  const std::vector<ir::TensorType> types = inputTypesOf(ctx);
  std::vector<ir::Tensor> results;
  for (size_t j = 0; j < spec.members.size(); ++j) {
    const GroupMember& m = spec.members[j];
    const OpDef* def = OpRegistry::builtin().find(m.domain, m.opType);
    if (!def || !def->compute) ctx.fail("member '" + m.name + "': no reference for " + m.opType);
    const ir::Node node = memberNode(m);
    std::vector<ir::TensorType> memberTypes;
    std::vector<const ir::Tensor*> values;
    for (size_t s = 0; s < m.inputs.size(); ++s) {
      memberTypes.push_back(memberInputType(spec, types, j, s));
      const int64_t ref = m.inputs[s];
      values.push_back(ref == kOmittedInput ? nullptr
                       : ref >= 0           ? ctx.value(static_cast<size_t>(ref))
                                            : &results.at(memberOf(ref)));
    }
    std::vector<ir::Tensor> out = ops::computeOp(*def, OpContext(node, ctx.opset(), memberTypes, values));
    if (out.empty()) ctx.fail("member '" + m.name + "' produced nothing");
    results.push_back(std::move(out[0]));
  }
  return {std::move(results.back())};
}

double flopsGroup(const OpContext& ctx, std::span<const ir::TensorType>) {
  try {
    const std::vector<ir::TensorType> types = inputTypesOf(ctx);
    if (!allKnown(types)) return 0;
    return GroupGeometry(decodeGroup(ctx.attrs(), ctx.numInputs()), types, ctx.opset()).flops();
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

void registerFusedGroupOps(OpRegistry& r) {
  OpDef def;
  def.type = "FusedGroup";
  def.domain = kRammerDomain;
  def.category = OpCategory::Other;
  def.infer = inferGroup;
  def.compute = computeGroup;
  def.flops = flopsGroup;
  r.add(std::move(def));
}

}  // namespace rammer::ops

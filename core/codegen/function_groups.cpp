#include "core/codegen/function_groups.h"

#include <unordered_map>

namespace rammer::codegen {

std::string canonicalSource(const std::string& source, const std::string& name) {
  if (name.empty()) return source;
  std::string out;
  out.reserve(source.size());
  size_t pos = 0;
  for (size_t hit; (hit = source.find(name, pos)) != std::string::npos; pos = hit + name.size()) {
    out.append(source, pos, hit - pos);
    out += "@FN@";  // '@' never occurs in C++ source, so no collision
  }
  out.append(source, pos, std::string::npos);
  return out;
}

FunctionGroups groupFunctions(const schedule::Plan& plan, const std::vector<std::vector<int32_t>>& opArgs) {
  FunctionGroups out;
  out.groupOfOp.assign(plan.ops.size(), -1);
  std::unordered_map<std::string, int32_t> bySource;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const schedule::PlannedOp& op = plan.ops[i];
    if (op.isView) continue;
    // The signature (in0.., out0..) is part of the source, so equal keys
    // also mean equal argument lists.
    std::string key = canonicalSource(op.kernel.cudaSource, op.kernel.cudaFunction);
    auto [it, inserted] = bySource.try_emplace(std::move(key), static_cast<int32_t>(out.groups.size()));
    if (inserted) {
      FunctionGroup g;
      g.representative = static_cast<int32_t>(i);
      g.function = op.kernel.cudaFunction;
      g.numArgs = i < opArgs.size() ? static_cast<int>(opArgs[i].size()) : 0;
      out.groups.push_back(std::move(g));
    }
    out.groupOfOp[i] = it->second;
    out.groups[static_cast<size_t>(it->second)].ops.push_back(static_cast<int32_t>(i));
  }
  return out;
}

}  // namespace rammer::codegen

#include "core/ops/group/fused_group.h"

#include <algorithm>

namespace rammer::ops {

namespace {

std::string key(size_t j, const std::string& what) { return "m" + std::to_string(j) + "." + what; }
// Member attributes live under "m<j>:<name>".
std::string attrPrefix(size_t j) { return "m" + std::to_string(j) + ":"; }

}  // namespace

ir::Attributes encodeGroup(const FusedGroupSpec& spec) {
  ir::Attributes a;
  std::vector<std::string> ops, domains, names;
  std::vector<int64_t> dims;
  for (size_t j = 0; j < spec.members.size(); ++j) {
    const GroupMember& m = spec.members[j];
    ops.push_back(m.opType);
    domains.push_back(m.domain);
    names.push_back(m.name);
    dims.push_back(m.splitDim);
    a.set(key(j, "inputs"), m.inputs);
    a.set(key(j, "shape"), std::vector<int64_t>(m.shape.begin(), m.shape.end()));
    for (const auto& [name, value] : m.attrs.all()) a.set(attrPrefix(j) + name, value);
  }
  a.set("member_ops", ops);
  a.set("member_domains", domains);
  a.set("member_names", names);
  a.set("split_dims", dims);
  a.set("piece", spec.piece);
  return a;
}

FusedGroupSpec decodeGroup(const ir::Attributes& a, size_t numInputs) {
  const std::vector<std::string> ops = a.getStrings("member_ops");
  const std::vector<std::string> domains = a.getStrings("member_domains", std::vector<std::string>(ops.size()));
  const std::vector<std::string> names = a.getStrings("member_names", std::vector<std::string>(ops.size()));
  const std::vector<int64_t> dims = a.getInts("split_dims");
  if (ops.empty()) throw OpError("FusedGroup has no members ('member_ops')");
  if (domains.size() != ops.size() || names.size() != ops.size() || dims.size() != ops.size())
    throw OpError("FusedGroup's member lists differ in length");
  FusedGroupSpec spec;
  spec.piece = a.getInt("piece", 0);
  if (spec.piece < 1) throw OpError("FusedGroup needs a positive 'piece'");
  for (size_t j = 0; j < ops.size(); ++j) {
    GroupMember m;
    m.opType = ops[j];
    m.domain = domains[j];
    m.name = names[j];
    m.splitDim = static_cast<int>(dims[j]);
    if (!a.has(key(j, "inputs")) || !a.has(key(j, "shape")))
      throw OpError("FusedGroup member " + std::to_string(j) + " lacks its inputs or shape");
    m.inputs = a.getInts(key(j, "inputs"));
    const std::vector<int64_t> shape = a.getInts(key(j, "shape"));
    m.shape = ir::Shape(shape.begin(), shape.end());
    for (int64_t ref : m.inputs) {
      const bool ok = ref == kOmittedInput || (ref >= 0 && static_cast<size_t>(ref) < numInputs) ||
                      (isMemberRef(ref) && memberOf(ref) < j);
      if (!ok) throw OpError("FusedGroup member '" + m.name + "' reads input " + std::to_string(ref) + ", which is not there");
    }
    const std::string prefix = attrPrefix(j);
    for (const auto& [name, value] : a.all())
      if (name.compare(0, prefix.size(), prefix) == 0) m.attrs.set(name.substr(prefix.size()), value);
    spec.members.push_back(std::move(m));
  }
  return spec;
}

ir::Node memberNode(const GroupMember& m) {
  ir::Node node;
  node.name = m.name;
  node.opType = m.opType;
  node.domain = m.domain;
  node.attrs = m.attrs;
  node.outputs = {0};
  return node;
}

ir::TensorType memberInputType(const FusedGroupSpec& spec, const std::vector<ir::TensorType>& inputTypes, size_t j,
                               size_t slot) {
  const int64_t ref = spec.members.at(j).inputs.at(slot);
  if (ref == kOmittedInput) return {};
  if (ref >= 0) return inputTypes.at(static_cast<size_t>(ref));
  return {ir::DType::Float32, spec.members.at(memberOf(ref)).shape};
}

GroupGeometry::GroupGeometry(FusedGroupSpec spec, const std::vector<ir::TensorType>& inputTypes, int64_t opset)
    : spec_(std::move(spec)), inputTypes_(inputTypes) {
  const size_t n = spec_.members.size();
  if (n == 0) throw OpError("a fused group needs members");
  std::vector<bool> read(n, false);
  for (size_t j = 0; j < n; ++j) {
    const GroupMember& gm = spec_.members[j];
    const ir::Node node = memberNode(gm);
    std::vector<ir::TensorType> types;
    for (size_t s = 0; s < gm.inputs.size(); ++s) {
      if (gm.inputs[s] >= 0 && static_cast<size_t>(gm.inputs[s]) >= inputTypes_.size())
        throw OpError("member '" + gm.name + "' reads group input " + std::to_string(gm.inputs[s]) + ", which is not there");
      if (isMemberRef(gm.inputs[s]) && memberOf(gm.inputs[s]) >= j)
        throw OpError("member '" + gm.name + "' reads a member that comes after it");
      types.push_back(memberInputType(spec_, inputTypes_, j, s));
    }
    const OpContext ctx(node, opset, types, std::vector<const ir::Tensor*>(types.size(), nullptr));
    std::string why;
    std::optional<MemberGeometry> g = readMember(node, ctx, gm.shape, why);
    if (!g) throw OpError("member '" + gm.name + "': " + why);
    std::optional<std::vector<AxisMap>> maps = splitAlong(*g, gm.splitDim, why);
    if (!maps) throw OpError("member '" + gm.name + "' cannot be split along dim " + std::to_string(gm.splitDim) + ": " + why);
    for (size_t s = 0; s < gm.inputs.size(); ++s) {
      if (!isMemberRef(gm.inputs[s])) continue;
      const size_t p = memberOf(gm.inputs[s]);
      read[p] = true;
      const AxisMap& m = (*maps)[s];
      if (m.kind == AxisMap::Kind::Whole || m.inputDim != spec_.members[p].splitDim)
        throw OpError("member '" + gm.name + "' does not read member '" + spec_.members[p].name +
                      "' along that member's split dim");
    }
    geometry_.push_back(std::move(*g));
    maps_.push_back(std::move(*maps));
  }
  for (size_t j = 0; j + 1 < n; ++j)
    if (!read[j]) throw OpError("member '" + spec_.members[j].name + "' is read by no other member: only the last leaves the group");
  const GroupMember& sink = spec_.members.back();
  const int64_t extent = sink.shape.at(static_cast<size_t>(sink.splitDim));
  if (spec_.piece < 1) throw OpError("a fused group needs a positive piece");
  numInstances_ = (extent + spec_.piece - 1) / spec_.piece;
  maxExtent_.assign(n, 0);
  computed_.assign(n, 0);
  for (int64_t i = 0; i < numInstances_; ++i) {
    const std::vector<Span> r = ranges(i);
    for (size_t j = 0; j < n; ++j) {
      maxExtent_[j] = std::max(maxExtent_[j], r[j].size());
      computed_[j] += r[j].size();
      inputBytesRead_ += inputBytesOf(j, r[j]);
    }
  }
}

double GroupGeometry::inputBytesOf(size_t j, Span range) const {
  double bytes = 0;
  const GroupMember& m = spec_.members[j];
  for (size_t s = 0; s < m.inputs.size(); ++s) {
    if (m.inputs[s] < 0) continue;
    const ir::Shape& shape = inputTypes_[static_cast<size_t>(m.inputs[s])].shape;
    const int64_t numel = ir::numElements(shape);
    const AxisMap& map = maps_[j][s];
    if (map.kind == AxisMap::Kind::Whole || numel == 0) {
      bytes += 4.0 * static_cast<double>(numel);
      continue;
    }
    const int64_t dim = shape.at(static_cast<size_t>(map.inputDim));
    bytes += 4.0 * static_cast<double>(map.inputSpan(range, dim).size() * (numel / dim));
  }
  return bytes;
}

std::vector<Span> GroupGeometry::ranges(int64_t instance) const {
  const size_t n = spec_.members.size();
  const GroupMember& sink = spec_.members.back();
  const int64_t extent = sink.shape.at(static_cast<size_t>(sink.splitDim));
  std::vector<Span> r(n, Span{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()});
  r[n - 1] = {instance * spec_.piece, std::min(extent, (instance + 1) * spec_.piece)};
  for (size_t j = n; j-- > 0;) {
    if (r[j].lo >= r[j].hi) r[j] = {0, 0};
    const GroupMember& m = spec_.members[j];
    for (size_t s = 0; s < m.inputs.size(); ++s) {
      if (!isMemberRef(m.inputs[s])) continue;
      const size_t p = memberOf(m.inputs[s]);
      const GroupMember& pm = spec_.members[p];
      const Span in = maps_[j][s].inputSpan(r[j], pm.shape.at(static_cast<size_t>(pm.splitDim)));
      if (in.lo >= in.hi) continue;
      r[p].lo = std::min(r[p].lo, in.lo);
      r[p].hi = std::max(r[p].hi, in.hi);
    }
  }
  return r;
}

int64_t GroupGeometry::slabElements(size_t j) const {
  const GroupMember& m = spec_.members.at(j);
  const int64_t d = m.shape.at(static_cast<size_t>(m.splitDim));
  return d ? ir::numElements(m.shape) / d : 0;
}

int64_t GroupGeometry::workingSetBytes() const {
  int64_t bytes = 0;
  for (size_t j = 0; j + 1 < spec_.members.size(); ++j) bytes += maxExtent_[j] * slabElements(j) * 4;
  return bytes;
}

double GroupGeometry::recomputeRatio() const {
  double computed = 0, total = 0;
  for (size_t j = 0; j < spec_.members.size(); ++j) {
    computed += static_cast<double>(computed_[j] * slabElements(j));
    total += static_cast<double>(ir::numElements(spec_.members[j].shape));
  }
  return total > 0 ? computed / total : 1;
}

double GroupGeometry::flops() const {
  double f = 0;
  for (size_t j = 0; j < spec_.members.size(); ++j)
    f += static_cast<double>(computed_[j] * slabElements(j)) * geometry_[j].flopsPerElement();
  return f;
}

double GroupGeometry::inputBytesUnique() const {
  std::vector<bool> seen(inputTypes_.size(), false);
  for (const GroupMember& m : spec_.members)
    for (int64_t ref : m.inputs)
      if (ref >= 0) seen[static_cast<size_t>(ref)] = true;
  double bytes = 0;
  for (size_t k = 0; k < seen.size(); ++k)
    if (seen[k]) bytes += 4.0 * static_cast<double>(ir::numElements(inputTypes_[k].shape));
  return bytes;
}

}  // namespace rammer::ops

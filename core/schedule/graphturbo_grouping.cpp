#include "core/schedule/graphturbo_grouping.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/kernels/fused_group_kernels.h"
#include "core/kernels/kernel_source.h"
#include "core/ops/op_registry.h"
#include "core/schedule/plan_builder.h"

namespace rammer::schedule {

namespace {

std::string kb(int64_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KB"; }

class Grower {
 public:
  Grower(const ir::Graph& g, const GroupingOptions& o) : graph_(g), options_(o) {}

  Grouping run() {
    Grouping out;
    auto order = graph_.topologicalOrder();
    if (!order) return out;
    topo_.assign(graph_.numNodeSlots(), -1);
    for (size_t i = 0; i < order->size(); ++i) topo_[static_cast<size_t>((*order)[i])] = static_cast<int64_t>(i);
    assigned_.assign(graph_.numNodeSlots(), false);
    for (size_t i = order->size(); i-- > 0;) {
      const ir::NodeId sink = (*order)[i];
      if (assigned_[static_cast<size_t>(sink)] || excluded(sink)) continue;
      const MemberInfo* mi = member(sink);
      if (!mi->geometry) {
        out.alone.push_back("'" + graph_.node(sink).name + "' stays alone: " + mi->why);
        continue;
      }
      std::optional<GroupChoice> best;
      std::set<std::string> stops;
      for (int d = 0; d < static_cast<int>(mi->geometry->output.size()); ++d) {
        if (mi->geometry->output[static_cast<size_t>(d)] < 2) continue;
        std::optional<GroupChoice> c = grow(sink, d);
        if (!c) continue;
        stops.insert(c->stop);
        if (!best || c->members.size() > best->members.size() ||
            (c->members.size() == best->members.size() && c->groupUs < best->groupUs))
          best = std::move(c);
      }
      if (best && best->members.size() >= 2) {
        for (ir::NodeId m : best->members) assigned_[static_cast<size_t>(m)] = true;
        out.groups.push_back(std::move(*best));
      } else {
        std::string why;
        for (const std::string& s : stops) why += (why.empty() ? "" : "; ") + s;
        out.alone.push_back("'" + graph_.node(sink).name + "' stays alone: " + (why.empty() ? "it cannot be split" : why));
      }
    }
    std::reverse(out.groups.begin(), out.groups.end());
    return out;
  }

 private:
  struct MemberInfo {
    std::optional<ops::MemberGeometry> geometry;
    std::string why;
  };

  bool excluded(ir::NodeId n) const { return options_.excluded && options_.excluded(n); }

  const MemberInfo* member(ir::NodeId n) {
    auto it = members_.find(n);
    if (it != members_.end()) return &it->second;
    MemberInfo info;
    const ir::Node& node = graph_.node(n);
    const ir::ValueId out = node.output(0);
    if (node.outputs.size() != 1 || out == ir::kNone) {
      info.why = "it does not have exactly one output";
    } else {
      try {
        const kernels::NodeInfo ni = kernels::readNode(graph_, n);
        info.geometry = ops::readMember(node, ni.context(), graph_.value(out).type.shape, info.why);
      } catch (const std::exception& e) {
        info.why = e.what();
      }
    }
    return &members_.emplace(n, std::move(info)).first->second;
  }

  // The spec for `members` (any order) split along `dims`, with `piece`.
  std::pair<ops::FusedGroupSpec, std::vector<ir::ValueId>> specOf(std::vector<ir::NodeId> members,
                                                                  const std::map<ir::NodeId, int>& dims) const {
    std::sort(members.begin(), members.end(),
              [&](ir::NodeId a, ir::NodeId b) { return topo_[static_cast<size_t>(a)] < topo_[static_cast<size_t>(b)]; });
    std::map<ir::NodeId, size_t> index;
    for (size_t j = 0; j < members.size(); ++j) index[members[j]] = j;
    ops::FusedGroupSpec spec;
    std::vector<ir::ValueId> inputs;
    for (ir::NodeId id : members) {
      const ir::Node& n = graph_.node(id);
      ops::GroupMember m;
      m.name = n.name;
      m.opType = n.opType;
      m.domain = n.domain;
      m.attrs = n.attrs;
      m.shape = graph_.value(n.output(0)).type.shape;
      m.splitDim = dims.at(id);
      for (ir::ValueId v : n.inputs) {
        if (v == ir::kNone) {
          m.inputs.push_back(ops::kOmittedInput);
          continue;
        }
        const ir::NodeId p = graph_.value(v).producer;
        if (p != ir::kNone && index.count(p)) {
          m.inputs.push_back(ops::memberRef(index.at(p)));
          continue;
        }
        auto at = std::find(inputs.begin(), inputs.end(), v);
        if (at == inputs.end()) at = inputs.insert(inputs.end(), v);
        m.inputs.push_back(at - inputs.begin());
      }
      spec.members.push_back(std::move(m));
    }
    return {std::move(spec), std::move(inputs)};
  }

  // `members` at their best instance count (spec, inputs, instances, working
  // set, recompute, groupUs filled in), or nullopt with `why`.
  std::optional<GroupChoice> evaluate(const std::vector<ir::NodeId>& members, const std::map<ir::NodeId, int>& dims,
                                    std::string& why) const {
    auto [spec, inputs] = specOf(members, dims);
    std::vector<ir::TensorType> types;
    for (ir::ValueId v : inputs) types.push_back(graph_.value(v).type);
    const ops::GroupMember& sink = spec.members.back();
    const int64_t extent = sink.shape.at(static_cast<size_t>(sink.splitDim));
    auto geometryFor = [&, &spec = spec](int64_t instances) {  // an alias: clang 15 cannot capture a structured binding
      ops::FusedGroupSpec s = spec;
      s.piece = (extent + instances - 1) / instances;
      return ops::GroupGeometry(std::move(s), types, options_.opset);
    };
    try {
      // Smallest instance count that fits (the working set shrinks as instances grow).
      int64_t lo = 1, hi = extent;
      if (const int64_t finest = geometryFor(hi).workingSetBytes(); finest > options_.budgetBytes) {
        why = "an instance's working set, " + kb(finest) + " at the finest split, exceeds the " + kb(options_.budgetBytes) +
              " budget";
        return std::nullopt;
      }
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (geometryFor(mid).workingSetBytes() <= options_.budgetBytes) hi = mid;
        else lo = mid + 1;
      }
      std::optional<GroupChoice> best;
      int64_t lastPiece = -1;
      for (int64_t f = lo; f <= extent; f = f < extent && f * 2 > extent ? extent : f * 2) {
        const ops::GroupGeometry geo = geometryFor(f);
        if (geo.spec().piece == lastPiece) {
          if (f == extent) break;
          continue;
        }
        lastPiece = geo.spec().piece;
        if (geo.recomputeRatio() > options_.maxRecompute) {
          if (!best)
            why = "recomputed halos, " + std::to_string(geo.recomputeRatio()).substr(0, 4) + "x the outputs, exceed " +
                  std::to_string(options_.maxRecompute).substr(0, 4) + "x";
          break;
        }
        GroupChoice e;
        e.spec = geo.spec();
        e.inputs = inputs;
        e.instances = geo.numInstances();
        e.smallestFit = lo;
        e.workingSetBytes = geo.workingSetBytes();
        e.recompute = geo.recomputeRatio();
        e.groupUs = options_.kernelUs ? options_.kernelUs(kernels::fusedGroupEstimate(geo)) : 0;
        if (!best || e.groupUs < best->groupUs) best = std::move(e);
        if (!options_.kernelUs || f == extent) break;
      }
      return best;
    } catch (const std::exception& e) {
      why = e.what();
      return std::nullopt;
    }
  }

  std::optional<GroupChoice> grow(ir::NodeId sink, int dim) {
    std::string why;
    const ops::MemberGeometry& sg = *member(sink)->geometry;
    if (!ops::splitAlong(sg, dim, why)) return std::nullopt;
    std::vector<ir::NodeId> members{sink};
    std::set<ir::NodeId> inGroup{sink};
    std::map<ir::NodeId, int> dims{{sink, dim}};
    double apart = options_.soloUs ? options_.soloUs(sink) : 0;
    std::optional<GroupChoice> current;
    std::vector<std::string> stops;
    auto stopped = [&stops](std::string why) {
      if (std::find(stops.begin(), stops.end(), why) == stops.end()) stops.push_back(std::move(why));
    };
    for (size_t next = 0; next < members.size(); ++next) {
      const ir::NodeId m = members[next];
      const std::optional<std::vector<ops::AxisMap>> maps = ops::splitAlong(*member(m)->geometry, dims.at(m), why);
      if (!maps) continue;
      const ir::Node& mn = graph_.node(m);
      for (size_t s = 0; s < mn.inputs.size(); ++s) {
        const ir::ValueId v = mn.inputs[s];
        if (v == ir::kNone) continue;
        const ir::NodeId p = graph_.value(v).producer;
        if (p == ir::kNone || inGroup.count(p)) continue;
        const std::string label = "'" + graph_.node(p).name + "'";
        if (assigned_[static_cast<size_t>(p)]) continue;
        if (excluded(p)) {
          stopped(label + " is named by a schedule edit");
          continue;
        }
        const MemberInfo* pi = member(p);
        if (!pi->geometry) {
          stopped(label + ": " + pi->why);
          continue;
        }
        const ops::AxisMap& map = (*maps)[s];
        if (map.kind == ops::AxisMap::Kind::Whole) {
          stopped("'" + mn.name + "' reads " + label + " whole along its split dim");
          continue;
        }
        const ir::Value& pv = graph_.value(v);
        bool inside = !pv.isGraphOutput;
        for (ir::NodeId c : pv.consumers) inside = inside && inGroup.count(c);
        if (!inside) {
          stopped(label + " is also read outside the group");
          continue;
        }
        if (members.size() >= options_.maxMembers) {
          stopped("the group holds " + std::to_string(options_.maxMembers) + " operators, the most a group takes");
          continue;
        }
        std::vector<ir::NodeId> grown = members;
        grown.push_back(p);
        std::map<ir::NodeId, int> grownDims = dims;
        grownDims[p] = map.inputDim;
        std::string evalWhy;
        std::optional<GroupChoice> e = evaluate(grown, grownDims, evalWhy);
        if (!e) {
          stopped("with " + label + ": " + evalWhy);
          continue;
        }
        const double before = (current ? current->groupUs : (options_.soloUs ? options_.soloUs(sink) : 0)) + (options_.soloUs ? options_.soloUs(p) : 0);
        if (options_.kernelUs && e->groupUs > before) {
          stopped("with " + label + " the group is predicted slower (" + formatUs(e->groupUs) + " vs " + formatUs(before) +
                  " apart)");
          continue;
        }
        members = std::move(grown);
        dims = std::move(grownDims);
        inGroup.insert(p);
        apart += options_.soloUs ? options_.soloUs(p) : 0;
        current = std::move(e);
      }
    }
    GroupChoice c = current ? std::move(*current) : GroupChoice{};
    c.members = std::move(members);
    std::sort(c.members.begin(), c.members.end(),
              [&](ir::NodeId a, ir::NodeId b) { return topo_[static_cast<size_t>(a)] < topo_[static_cast<size_t>(b)]; });
    for (const std::string& why : stops) c.stop += (c.stop.empty() ? "" : "; ") + why;
    if (c.stop.empty()) c.stop = "no producer could join";
    c.apartUs = apart;
    return c;
  }

  const ir::Graph& graph_;
  const GroupingOptions& options_;
  std::vector<int64_t> topo_;
  std::vector<bool> assigned_;
  std::map<ir::NodeId, MemberInfo> members_;
};

}  // namespace

Grouping findGroups(const ir::Graph& graph, const GroupingOptions& options) { return Grower(graph, options).run(); }

ir::Result<ir::Graph> applyGroups(const ir::Graph& graph, const Grouping& grouping) {
  ir::Graph g = graph;
  for (const GroupChoice& c : grouping.groups) {
    const ir::Node& sink = graph.node(c.members.back());
    ir::Node n;
    n.name = sink.name + ".group";
    n.opType = "FusedGroup";
    n.domain = ops::kRammerDomain;
    n.inputs = c.inputs;
    n.outputs = {sink.output(0)};
    n.attrs = ops::encodeGroup(c.spec);
    for (ir::NodeId m : c.members) g.removeNode(m);
    try {
      g.addNode(std::move(n));
    } catch (const std::exception& e) {
      return ir::makeError("cannot group at '" + sink.name + "': " + e.what(), sink.name);
    }
  }
  return g;
}

}  // namespace rammer::schedule

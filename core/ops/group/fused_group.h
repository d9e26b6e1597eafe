#pragma once
// A fused group (GraphTurbo's sub-graph, Zhao et al., OSDI'23): operators
// joined producer to consumer that compute one piece of the group's output
// at a time. The group is one node of domain com.rammer, op "FusedGroup";
// its attributes carry the members (op, attributes, wiring, output shape,
// split dim) and the piece size, so the node describes itself to the
// reference executor, the rKernel library and the ONNX exporter alike.
//
// An *instance* computes the sink's output piece [i*piece, (i+1)*piece)
// along the sink's split dim. Walking back through the group, each member
// computes the range of its own split dim that its consumers in the group
// read (halos included: a 3x3 convolution needs one more row each side),
// so an instance never needs another instance's intermediates; only the
// sink's output leaves the group.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/ops/group/split_info.h"

namespace rammer::ops {

// A member's input slot: a group input (>= 0), member j's output
// (memberRef(j)), or omitted.
inline constexpr int64_t kOmittedInput = std::numeric_limits<int64_t>::min();
inline int64_t memberRef(size_t j) { return -static_cast<int64_t>(j) - 1; }
inline bool isMemberRef(int64_t ref) { return ref < 0 && ref != kOmittedInput; }
inline size_t memberOf(int64_t ref) { return static_cast<size_t>(-(ref + 1)); }

struct GroupMember {
  std::string name;
  std::string opType;
  std::string domain;
  ir::Attributes attrs;
  std::vector<int64_t> inputs;  // per slot, see memberRef
  ir::Shape shape;              // output 0
  int splitDim = 0;             // the output dim instances cut
};

// A member as a node (its op, attributes and one output) for the op's own
// context: geometry, type inference, reference compute.
ir::Node memberNode(const GroupMember& m);

struct FusedGroupSpec {
  std::vector<GroupMember> members;  // producers first; the last is the sink, the group's one output
  int64_t piece = 1;                 // the sink's extent along its split dim per instance
};

// The node attributes that carry `spec`, and back. decodeGroup throws
// OpError naming what is missing or inconsistent.
ir::Attributes encodeGroup(const FusedGroupSpec& spec);
FusedGroupSpec decodeGroup(const ir::Attributes& attrs, size_t numInputs);

// A spec with every member's geometry and split maps resolved against the
// group's input types. Throws OpError when a member cannot be split the way
// the spec says or reads a producer whole.
class GroupGeometry {
 public:
  GroupGeometry(FusedGroupSpec spec, const std::vector<ir::TensorType>& inputTypes, int64_t opset);

  const FusedGroupSpec& spec() const { return spec_; }
  size_t numMembers() const { return spec_.members.size(); }
  const MemberGeometry& member(size_t j) const { return geometry_.at(j); }
  const std::vector<AxisMap>& maps(size_t j) const { return maps_.at(j); }
  const ir::TensorType& inputType(size_t k) const { return inputTypes_.at(k); }

  int64_t numInstances() const { return numInstances_; }
  // Each member's output range along its split dim for `instance`.
  std::vector<Span> ranges(int64_t instance) const;
  // The largest range of member j over all instances.
  int64_t maxExtent(size_t j) const { return maxExtent_.at(j); }
  // Elements of member j's output outside its split dim (a slab of one).
  int64_t slabElements(size_t j) const;
  // Shared memory one instance needs: every member but the sink keeps its
  // range there.
  int64_t workingSetBytes() const;
  // Elements every member computes over all instances, divided by the
  // elements of their outputs: 1 without halos.
  double recomputeRatio() const;
  // FLOPs over all instances (recomputed halos included).
  double flops() const;
  // Bytes read from group inputs over all instances, and the bytes of the
  // group inputs read at least once (what must come from DRAM).
  double inputBytesRead() const { return inputBytesRead_; }
  double inputBytesUnique() const;

 private:
  FusedGroupSpec spec_;
  std::vector<ir::TensorType> inputTypes_;
  std::vector<MemberGeometry> geometry_;
  std::vector<std::vector<AxisMap>> maps_;
  std::vector<int64_t> maxExtent_;
  std::vector<int64_t> computed_;  // elements over all instances, per member
  int64_t numInstances_ = 0;
  double inputBytesRead_ = 0;
  // Bytes member j reads from group inputs while computing `range`.
  double inputBytesOf(size_t j, Span range) const;
};

// The type of a member's input slot: a group input's or a member's output.
ir::TensorType memberInputType(const FusedGroupSpec& spec, const std::vector<ir::TensorType>& inputTypes, size_t j,
                               size_t slot);

}  // namespace rammer::ops

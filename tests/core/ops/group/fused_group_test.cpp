// A fused group's geometry: the ranges each member computes per instance
// (halos included), the working set, the recomputation; the attributes
// that carry a group round-trip; inconsistent groups are refused by name;
// the reference runs a group exactly as its members.
#include "core/ops/group/fused_group.h"

#include <gtest/gtest.h>

#include "core/ops/op_registry.h"

namespace rammer::ops {
namespace {

// relu(x) -> 3x3 convolution (pad 1) over x [1,2,12,8], split along rows.
FusedGroupSpec reluConv(int64_t piece) {
  FusedGroupSpec s;
  GroupMember relu;
  relu.name = "relu";
  relu.opType = "FusedElementwise";
  relu.domain = kRammerDomain;
  relu.attrs.set("expr", std::string("(relu x0)"));
  relu.inputs = {0};
  relu.shape = {1, 2, 12, 8};
  relu.splitDim = 2;
  GroupMember conv;
  conv.name = "conv";
  conv.opType = "Conv";
  conv.attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  conv.attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv.inputs = {memberRef(0), 1};
  conv.shape = {1, 3, 12, 8};
  conv.splitDim = 2;
  s.members = {relu, conv};
  s.piece = piece;
  return s;
}

std::vector<ir::TensorType> reluConvInputs() {
  return {{ir::DType::Float32, {1, 2, 12, 8}}, {ir::DType::Float32, {3, 2, 3, 3}}};
}

TEST(FusedGroup, InstancesComputeTheirRowsAndTheHalosTheirConsumersRead) {
  const GroupGeometry g(reluConv(4), reluConvInputs(), 17);
  ASSERT_EQ(g.numInstances(), 3);
  EXPECT_EQ(g.ranges(0), (std::vector<Span>{{0, 5}, {0, 4}}));
  EXPECT_EQ(g.ranges(1), (std::vector<Span>{{3, 9}, {4, 8}}));
  EXPECT_EQ(g.ranges(2), (std::vector<Span>{{7, 12}, {8, 12}}));
  EXPECT_EQ(g.maxExtent(0), 6);
  EXPECT_EQ(g.slabElements(0), 2 * 8);
  EXPECT_EQ(g.workingSetBytes(), 6 * 16 * 4);  // only the relu's rows stay on chip
  // relu computes 16 rows of its 12 (16 elements each), the convolution its 12 (24 each).
  EXPECT_NEAR(g.recomputeRatio(), (16.0 * 16 + 12 * 24) / (12 * 16 + 12 * 24), 1e-12);
  // One instance: no halo, the whole map on chip.
  const GroupGeometry whole(reluConv(12), reluConvInputs(), 17);
  EXPECT_EQ(whole.numInstances(), 1);
  EXPECT_DOUBLE_EQ(whole.recomputeRatio(), 1.0);
  EXPECT_EQ(whole.workingSetBytes(), 12 * 16 * 4);
  // FLOPs count the recomputed rows: relu 1 per element, conv 2 x 2 x 9 per element.
  EXPECT_DOUBLE_EQ(g.flops(), 16.0 * 16 * 1 + 12.0 * 24 * 36);
}

TEST(FusedGroup, AttributesRoundTrip) {
  const FusedGroupSpec s = reluConv(4);
  const FusedGroupSpec back = decodeGroup(encodeGroup(s), 2);
  ASSERT_EQ(back.members.size(), 2u);
  EXPECT_EQ(back.piece, 4);
  for (size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(back.members[j].name, s.members[j].name);
    EXPECT_EQ(back.members[j].opType, s.members[j].opType);
    EXPECT_EQ(back.members[j].domain, s.members[j].domain);
    EXPECT_EQ(back.members[j].inputs, s.members[j].inputs);
    EXPECT_EQ(back.members[j].shape, s.members[j].shape);
    EXPECT_EQ(back.members[j].splitDim, s.members[j].splitDim);
    EXPECT_EQ(back.members[j].attrs.all().size(), s.members[j].attrs.all().size());
    for (const auto& [name, value] : s.members[j].attrs.all()) {
      ASSERT_TRUE(back.members[j].attrs.has(name)) << name;
      EXPECT_EQ(back.members[j].attrs.find(name)->index(), value.index()) << name;
    }
    EXPECT_EQ(back.members[j].attrs.getInts("pads", {}), s.members[j].attrs.getInts("pads", {}));
    EXPECT_EQ(back.members[j].attrs.getString("expr", ""), s.members[j].attrs.getString("expr", ""));
  }
  // A member reading an input the node does not have.
  EXPECT_THROW(decodeGroup(encodeGroup(s), 1), OpError);
}

TEST(FusedGroup, RefusesMembersThatCannotShareInstances) {
  // The convolution sums over every channel: split along channels it reads
  // the relu whole.
  FusedGroupSpec channels = reluConv(1);
  channels.members[0].splitDim = 1;
  channels.members[1].splitDim = 1;
  try {
    GroupGeometry(channels, reluConvInputs(), 17);
    FAIL() << "a channel split through a convolution was accepted";
  } catch (const OpError& e) {
    EXPECT_NE(std::string(e.what()).find("'conv' does not read member 'relu' along that member's split dim"),
              std::string::npos)
        << e.what();
  }
  // A member nobody reads would be a second output.
  FusedGroupSpec dangling = reluConv(4);
  dangling.members[1].inputs = {0, 1};
  EXPECT_THROW(GroupGeometry(dangling, reluConvInputs(), 17), OpError);
  // An op groups do not implement is named.
  FusedGroupSpec softmax = reluConv(4);
  softmax.members[0].opType = "Softmax";
  softmax.members[0].domain = "";
  try {
    GroupGeometry(softmax, reluConvInputs(), 17);
    FAIL();
  } catch (const OpError& e) {
    EXPECT_NE(std::string(e.what()).find("fused groups do not implement Softmax"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rammer::ops

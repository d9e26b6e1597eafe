// The fused-group rKernel: its rTasks (in shuffled order) declare the
// sink's pieces, every output element once, for one instance and for many;
// its counts follow the group (one rTask per instance, shared memory =
// working set, a barrier between members), and its CUDA text instantiates
// fused_group.cuh with the intermediates in shared memory.
#include "core/kernels/fused_group_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/kernels/cuda_library.h"

#include "core/exec/reference_executor.h"
#include "core/schedule/graphturbo_grouping.h"
#include "tests/core/kernels/kernel_check.h"
#include "tests/core/schedule/group_fixtures.h"

namespace rammer::kernels {
namespace {

// The chain grouped under `budget` (no cost check): the rewritten graph
// and its FusedGroup nodes.
struct Grouped {
  ir::Graph graph;
  std::vector<ir::NodeId> groups;
  schedule::Grouping grouping;
};

Grouped group(const testing::GroupFixture& f, int64_t budget) {
  schedule::GroupingOptions o;
  o.budgetBytes = budget;
  Grouped out;
  out.grouping = schedule::findGroups(f.graph, o);
  auto applied = schedule::applyGroups(f.graph, out.grouping);
  EXPECT_TRUE(applied.ok()) << applied.errorText();
  out.graph = std::move(applied).value();
  for (size_t i = 0; i < out.graph.numNodeSlots(); ++i) {
    const ir::Node& n = out.graph.node(static_cast<ir::NodeId>(i));
    if (!n.removed && n.opType == "FusedGroup") out.groups.push_back(static_cast<ir::NodeId>(i));
  }
  return out;
}

// 1 MB: all seven operators, one instance; 8 KB: all seven, two
// instances; 2 KB: two groups, one split along channels.
TEST(FusedGroupKernel, InstancesCoverTheMembersReferenceForOneAndManyInstances) {
  const testing::GroupFixture f = testing::convChain();
  std::vector<int64_t> instances;
  for (int64_t budget : {int64_t{1} << 20, int64_t{8} * 1024, int64_t{2} * 1024}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    const Grouped g = group(f, budget);
    ASSERT_EQ(g.groups.size(), g.grouping.groups.size());
    ASSERT_FALSE(g.groups.empty());
    for (size_t i = 0; i < g.groups.size(); ++i) {
      const schedule::GroupChoice& c = g.grouping.groups[i];
      EXPECT_LE(c.workingSetBytes, budget);
      auto ks = kernelsFor(g.graph, g.groups[i]);
      ASSERT_TRUE(ks.ok()) << ks.errorText();
      ASSERT_EQ(ks->candidates.size(), 1u);
      const RKernel& k = ks->candidates.front();
      EXPECT_EQ(k.family, "fused_group");
      EXPECT_EQ(k.numRTasks, c.instances);
      EXPECT_EQ(k.sharedBytes, c.workingSetBytes);
      EXPECT_EQ(k.syncCount, static_cast<int>(c.members.size()) - 1);
      EXPECT_LE(k.l2Bytes, k.bytes);
      // Instances read their halo rows and the weights again: L2 traffic
      // comes with more instances, DRAM traffic does not grow.
      if (k.numRTasks == 1) {
        EXPECT_EQ(k.l2Bytes, 0);
      } else {
        EXPECT_GT(k.l2Bytes, 0);
      }
      testing::checkCandidates(g.graph, g.groups[i], 1e-5);
    }
    instances.push_back(g.grouping.groups.back().instances);
    // The rewritten graph computes what the original does.
    auto want = exec::runReference(f.graph, f.inputs);
    auto got = exec::runReference(g.graph, f.inputs);
    ASSERT_TRUE(want.ok() && got.ok());
    const auto a = (*want)[0].values<float>(), b = (*got)[0].values<float>();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4f) << i;
  }
  EXPECT_EQ(instances, (std::vector<int64_t>{1, 2, 2}));
  const Grouped small = group(f, 2 * 1024);
  ASSERT_EQ(small.grouping.groups.size(), 2u);
  EXPECT_EQ(small.grouping.groups.front().spec.members.back().splitDim, 1);  // c1 and e1 by channels
}

// The source instantiates fused_group.cuh with the seven members in
// order: the first six read only group inputs and their producers' ranges
// in shared memory (RammerGroupBuffer), each at its own offset, and the
// sink alone writes out0.
TEST(FusedGroupKernel, CudaKeepsIntermediatesInSharedMemory) {
  const Grouped g = group(testing::convChain(), 8 * 1024);
  ASSERT_EQ(g.groups.size(), 1u);
  auto ks = kernelsFor(g.graph, g.groups.front());
  ASSERT_TRUE(ks.ok());
  const RKernel& k = ks->candidates.front();
  EXPECT_NE(std::find(k.cudaLibraries.begin(), k.cudaLibraries.end(), kFusedGroup), k.cudaLibraries.end());
  const std::string& src = k.cudaSource;
  EXPECT_NE(src.find("rammer_fused_group<"), std::string::npos) << src;
  std::vector<size_t> members;
  for (size_t at = src.find("RammerGroupMember<"); at != std::string::npos; at = src.find("RammerGroupMember<", at + 1))
    members.push_back(at);
  ASSERT_EQ(members.size(), 7u) << src;
  // Every member after the first reads its producer from shared memory,
  // and only through group inputs otherwise.
  for (size_t j = 1; j < members.size(); ++j) {
    const std::string member = src.substr(members[j], (j + 1 < members.size() ? members[j + 1] : src.size()) - members[j]);
    EXPECT_NE(member.find("RammerGroupBuffer<" + std::to_string(j - 1) + ", "), std::string::npos) << member;
  }
  EXPECT_EQ(k.syncCount, 6);
  EXPECT_EQ(src.find("__syncthreads"), std::string::npos) << "the barriers are the template's";
}

}  // namespace
}  // namespace rammer::kernels

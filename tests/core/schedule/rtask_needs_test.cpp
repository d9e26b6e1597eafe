// Waits at rTask grain: two fused groups chained along rows, four instances
// of four rows each. The consumer's 3x3 convolution reads one row beyond
// its piece on each side, so its instance i needs the producer's instances
// i-1..i+1 and no others; a program that orders exactly those is valid (and
// needs a barrier only where a needed instance ran on another vEU), one that
// leaves a needed instance unordered is not.
#include "core/schedule/rtask_needs.h"

#include <gtest/gtest.h>

#include "core/kernels/kernel_library.h"
#include "core/schedule/graphturbo_grouping.h"
#include "core/schedule/validator.h"
#include "tests/core/schedule/group_fixtures.h"

namespace rammer::schedule {
namespace {

using testing::fused;

struct Chained {
  std::shared_ptr<ir::Graph> graph;
  Plan plan;  // ops: 0 = group a (producer), 1 = group b (consumer); no programs yet
};

Chained chained() {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 4, 16, 8});
  using V = std::vector<int64_t>;
  const ir::Attributes conv = testing::attrs({{"kernel_shape", V{3, 3}}, {"pads", V{1, 1, 1, 1}}});
  const ir::ValueId c1 = b.op("Conv", "c1", {x, b.constant("w1", testing::randomTensor({4, 4, 3, 3}, 1))}, conv);
  const ir::ValueId e1 = fused(b, "e1", "(relu x0)", {c1});
  const ir::ValueId c2 = b.op("Conv", "c2", {e1, b.constant("w2", testing::randomTensor({4, 4, 3, 3}, 2))}, conv);
  b.output(fused(b, "e2", "(relu x0)", {c2}));
  EXPECT_TRUE(b.infer().empty());
  const ir::Graph& g = b.graph();
  std::map<std::string, ir::NodeId> id;
  for (size_t i = 0; i < g.numNodeSlots(); ++i) id[g.node(static_cast<ir::NodeId>(i)).name] = static_cast<ir::NodeId>(i);
  // Each pair on its own (the other kept out), split along rows, four rows a piece.
  Grouping both;
  for (const auto& [keep, away] : {std::pair{"c1", "c2"}, std::pair{"c2", "c1"}}) {
    GroupingOptions o;
    const std::string other = std::string(away) == "c1" ? "e1" : "e2";
    o.excluded = [&, away = std::string(away), other](ir::NodeId n) { return n == id.at(away) || n == id.at(other); };
    Grouping one = findGroups(g, o);
    EXPECT_EQ(one.groups.size(), 1u) << keep;
    if (one.groups.empty()) return {};
    GroupChoice c = one.groups.front();
    for (ops::GroupMember& m : c.spec.members) m.splitDim = 2;
    c.spec.piece = 4;
    both.groups.push_back(std::move(c));
  }
  auto applied = applyGroups(g, both);
  EXPECT_TRUE(applied.ok()) << applied.errorText();
  Chained out;
  out.graph = std::make_shared<ir::Graph>(std::move(applied).value());
  out.plan.policy = "hand";
  out.plan.device = device::presetDevice("h100").value();
  out.plan.graph = out.graph;
  for (size_t i = 0; i < out.graph->numNodeSlots(); ++i) {
    const ir::Node& n = out.graph->node(static_cast<ir::NodeId>(i));
    if (n.removed) continue;
    auto ks = kernels::kernelsFor(*out.graph, static_cast<ir::NodeId>(i));
    EXPECT_TRUE(ks.ok()) << ks.errorText();
    PlannedOp op;
    op.node = static_cast<ir::NodeId>(i);
    op.name = n.name;
    op.opType = n.opType;
    op.kernel = ks->candidates.front();
    if (!out.plan.ops.empty()) op.producers = {0};
    out.plan.ops.push_back(std::move(op));
  }
  return out;
}

TEST(RTaskNeeds, AConsumerInstanceNeedsTheProducerInstancesUnderItsWindow) {
  const Chained c = chained();
  ASSERT_EQ(c.plan.ops.size(), 2u);
  ASSERT_EQ(c.plan.ops[0].name, "e1.group");
  ASSERT_EQ(c.plan.ops[0].kernel.numRTasks, 4);
  ASSERT_EQ(c.plan.ops[1].kernel.numRTasks, 4);
  const RTaskNeeds needs(c.plan.ops, *c.graph);
  EXPECT_TRUE(needs.any());
  const std::vector<std::vector<int64_t>> want = {{0, 1}, {0, 1, 2}, {1, 2, 3}, {2, 3}};
  for (int64_t i = 0; i < 4; ++i) {
    auto got = needs.needed(RTask{1, i}, 0);
    ASSERT_TRUE(got.has_value()) << i;
    EXPECT_EQ(*got, want[static_cast<size_t>(i)]) << i;
  }
  // The producer reads a graph input: nothing to narrow.
  EXPECT_FALSE(needs.needed(RTask{0, 0}, 1).has_value());
}

TEST(RTaskNeeds, TheValidatorChecksExactlyTheNeededInstances) {
  Chained c = chained();
  ASSERT_EQ(c.plan.ops.size(), 2u);
  const RTaskNeeds needs(c.plan.ops, *c.graph);
  // vEU 0 runs a0, a1 then b0, b1; vEU 1 runs a2, a3 then b2, b3. Only b1
  // (needs a2) and b2 (needs a1) wait on the other vEU.
  RProgram prog(2);
  for (int64_t i = 0; i < 4; ++i) prog.append(RTask{0, i}, i < 2 ? 0 : 1);
  for (int64_t i = 0; i < 4; ++i) {
    const auto needed = needs.needed(RTask{1, i}, 0);
    ASSERT_TRUE(needed.has_value());
    std::vector<RTask> deps;
    for (int64_t r : *needed) deps.push_back(RTask{0, r});
    prog.wait(RTask{1, i}, deps);
    prog.append(RTask{1, i}, i < 2 ? 0 : 1);
  }
  EXPECT_EQ(prog.numBarriers(), 2u);
  c.plan.programs.push_back(ProgramInfo{prog, 2, "hand"});
  const ValidationReport fine = checkPlan(c.plan, *c.graph);
  EXPECT_TRUE(fine.ok()) << (fine.ok() ? "" : fine.problems.front().message);

  // Without the barrier before b1, a2 (vEU 1) is unordered with it.
  std::vector<std::vector<Instr>> streams = prog.streams();
  for (auto it = streams[0].begin(); it != streams[0].end(); ++it)
    if (std::holds_alternative<Barrier>(*it)) {
      streams[0].erase(it);
      break;
    }
  c.plan.programs[0].program = RProgram::fromStreams(streams);
  const ValidationReport broken = checkPlan(c.plan, *c.graph);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.count(ProblemKind::Dependency), 1u);
  EXPECT_NE(broken.problems.front().message.find("e1.group[2]"), std::string::npos) << broken.problems.front().message;
}

}  // namespace
}  // namespace rammer::schedule

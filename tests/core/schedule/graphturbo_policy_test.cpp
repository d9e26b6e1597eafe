// The GraphTurbo policy on real graphs: groups form, each an rOperator whose
// rTasks are its instances; the plan is valid on its own graph, computes
// what the graph means on the emulator, moves no more bytes through DRAM
// than the sequential plan, and explains each group and why it stopped;
// both instance orders plan, auto picks the cheaper; edits are honoured;
// bad options are named.
#include "core/schedule/graphturbo_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/schedule/validator.h"
#include "core/sim/plan_figures.h"
#include "tests/core/schedule/group_fixtures.h"
#include "tests/core/schedule/policy_fixtures.h"

namespace rammer::schedule {
namespace {

std::shared_ptr<const ir::Graph> optimized(const std::string& name) {
  return testing::optimizedModel(name, "graphturbo");
}

ir::Result<Plan> plan(const std::string& policy, const ir::Graph& g, const Constraints& c = {},
                      GraphTurboOptions gt = {}) {
  return testing::analyticPlan(policy, g, c, {}, std::move(gt));
}

std::vector<ir::Tensor> inputsFor(const ir::Graph& g) {
  std::vector<ir::Tensor> inputs;
  for (ir::ValueId v : g.inputs()) {
    ir::Tensor t(ir::DType::Float32, g.value(v).type.shape);
    float x = 0;
    for (float& e : t.values<float>()) e = std::sin(x += 0.37f);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

std::string line(const Plan& p, const std::string& prefix) {
  for (const auto& d : p.decisions)
    if (d.rfind(prefix, 0) == 0) return d;
  return {};
}

TEST(GraphTurboPolicy, GroupsRunAsInstancesAndMatchTheReference) {
  for (const char* model : {"sample_cnn", "inception_block", "nasbench_cells"}) {
    SCOPED_TRACE(model);
    const auto g = optimized(model);
    auto gt = plan("graphturbo", *g);
    ASSERT_TRUE(gt.ok()) << gt.errorText();
    EXPECT_EQ(gt->policy, "graphturbo");
    const ir::Graph& runs = graphOf(*gt, *g);
    EXPECT_TRUE(checkPlan(*gt, runs).ok());
    size_t groups = 0;
    for (const auto& op : gt->ops)
      if (op.opType == "FusedGroup") {
        ++groups;
        EXPECT_EQ(op.kernel.family, "fused_group");
        EXPECT_EQ(op.kernel.numRTasks, op.kernel.params.at("instances"));
      }
    EXPECT_GT(groups, 0u);
    ASSERT_NE(gt->graph, nullptr);
    const std::string summary = line(*gt, "graphturbo (budget ");
    EXPECT_NE(summary.find(std::to_string(groups) + " groups of "), std::string::npos) << summary;
    size_t groupLines = 0;
    for (const auto& d : gt->decisions) groupLines += d.rfind("group '", 0) == 0 && d.find("; stopped: ") != std::string::npos;
    EXPECT_EQ(groupLines, groups);

    const std::vector<ir::Tensor> inputs = inputsFor(*g);
    auto want = exec::runReference(*g, inputs);
    ASSERT_TRUE(want.ok()) << want.errorText();
    auto got = exec::emulatePlan(*gt, *g, inputs, {});
    ASSERT_TRUE(got.ok()) << got.errorText();
    ASSERT_EQ(got->outputs.size(), want->size());
    for (size_t o = 0; o < want->size(); ++o) {
      const auto gv = got->outputs[o].values<float>();
      const auto wv = (*want)[o].values<float>();
      for (size_t e = 0; e < wv.size(); ++e) ASSERT_NEAR(gv[e], wv[e], 1e-4f * (1 + std::fabs(wv[e]))) << e;
    }
    auto sequential = plan("sequential", *g);
    ASSERT_TRUE(sequential.ok());
    EXPECT_LE(sim::figuresOf(*gt).dramBytes, sim::figuresOf(*sequential).dramBytes);
  }
}

TEST(GraphTurboPolicy, BothOrdersPlanAndAutoTakesTheCheaper) {
  const auto g = optimized("inception_block");
  GraphTurboOptions bfs, dfs;
  bfs.order = "bfs";
  dfs.order = "dfs";
  auto b = plan("graphturbo", *g, {}, bfs);
  auto d = plan("graphturbo", *g, {}, dfs);
  auto a = plan("graphturbo", *g);
  ASSERT_TRUE(b.ok() && d.ok() && a.ok());
  for (const Plan* p : {&*b, &*d, &*a}) EXPECT_TRUE(checkPlan(*p, graphOf(*p, *g)).ok());
  EXPECT_NE(line(*b, "graphturbo (budget ").find("order bfs)"), std::string::npos);
  EXPECT_NE(line(*d, "graphturbo (budget ").find("order dfs)"), std::string::npos);
  const std::string summary = line(*a, "graphturbo (budget ");
  // "order X (auto: bfs A us, dfs B us)": X is the order with the lower estimate.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(summary, m, std::regex(R"(order (bfs|dfs) \(auto: bfs ([0-9.e+]+) us, dfs ([0-9.e+]+) us\))")))
      << summary;
  EXPECT_EQ(m[1].str(), std::stod(m[3].str()) < std::stod(m[2].str()) ? "dfs" : "bfs") << summary;
  // The two orders place the operators differently.
  auto order = [](const Plan& p) {
    std::vector<int32_t> ops;
    for (const auto& s : p.programs.front().program.streams())
      for (const auto& i : s)
        if (const auto* e = std::get_if<Exec>(&i); e && (ops.empty() || ops.back() != e->task.op)) ops.push_back(e->task.op);
    return ops;
  };
  EXPECT_NE(order(*b), order(*d));
}

// Instances go to the vEU that frees first: a lone group's equal-length
// instances on an idle device spread evenly, one per vEU while they last.
TEST(GraphTurboPolicy, BindsInstancesToVEUsWithLoadBalance) {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 8, 64, 64});
  const ir::ValueId e1 = testing::fused(b, "e1", "(mul x0 2)", {x});
  b.output(testing::fused(b, "e2", "(relu x0)", {e1}));
  ASSERT_TRUE(b.infer().empty());
  GraphTurboOptions small;
  small.budgetBytes = 4 * 1024;  // a few rows of one channel per instance
  auto gt = plan("graphturbo", b.graph(), {}, small);
  ASSERT_TRUE(gt.ok()) << gt.errorText();
  ASSERT_EQ(gt->ops.size(), 1u);
  ASSERT_EQ(gt->ops[0].opType, "FusedGroup");
  const int64_t instances = gt->ops[0].kernel.numRTasks;
  ASSERT_GT(instances, 1);
  const RProgram& prog = gt->programs.at(0).program;
  std::vector<int64_t> perVEU;
  for (const auto& stream : prog.streams()) {
    int64_t n = 0;
    for (const Instr& i : stream) n += std::holds_alternative<Exec>(i);
    perVEU.push_back(n);
  }
  const auto [lo, hi] = std::minmax_element(perVEU.begin(), perVEU.end());
  EXPECT_LE(*hi - *lo, 1) << instances << " instances on " << perVEU.size() << " vEUs";
  EXPECT_EQ(*hi, (instances + prog.numVEUs() - 1) / prog.numVEUs());
}

TEST(GraphTurboPolicy, HonoursPinnedRKernelsAndCuts) {
  const auto g = optimized("sample_cnn");
  Constraints c;
  c.kernelFor["stem"] = "conv_igemm_32x32";
  c.cutBefore.insert("block.b");
  auto gt = plan("graphturbo", *g, c);
  ASSERT_TRUE(gt.ok()) << gt.errorText();
  EXPECT_EQ(gt->programs.size(), 2u);
  bool pinned = false, cut = false;
  for (const auto& op : gt->ops) {
    pinned = pinned || (op.name == "stem" && op.kernel.name == "conv_igemm_32x32");
    cut = cut || op.name == "block.b";
  }
  EXPECT_TRUE(pinned);
  EXPECT_TRUE(cut);  // edited operators stay out of every group
  EXPECT_TRUE(checkPlan(*gt, graphOf(*gt, *g)).ok());
}

TEST(GraphTurboPolicy, BadOptionsAreNamed) {
  const auto g = optimized("sample_cnn");
  GraphTurboOptions odd;
  odd.order = "sideways";
  EXPECT_NE(plan("graphturbo", *g, {}, odd).errorText().find("unknown GraphTurbo order 'sideways'"), std::string::npos);
  GraphTurboOptions negative;
  negative.budgetBytes = -1;
  EXPECT_NE(plan("graphturbo", *g, {}, negative).errorText().find("budget must not be negative"), std::string::npos);
}

}  // namespace
}  // namespace rammer::schedule

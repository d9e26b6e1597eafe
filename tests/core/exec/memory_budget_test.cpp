// Before a CPU run, the memory it would take is estimated from the graph
// and checked against a budget (issue #18 item 4): each estimate follows
// what its executor holds, and a small valid model that describes tensors
// of many gigabytes is refused, naming them, before anything is allocated.
#include "core/exec/memory_budget.h"

#include <gtest/gtest.h>

#include "core/exec/plan_emulator.h"
#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "tests/support/graph_builder.h"

namespace rammer::exec {
namespace {

namespace rt = rammer::testing;

// x[1000] -> Relu -> Sigmoid -> Tanh -> output: float32, 4,000 bytes each.
ir::Graph chain() {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1000});
  b.output(b.op("Tanh", "c", {b.op("Sigmoid", "b", {b.op("Relu", "a", {x})})}));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

// A 1-element input expanded to [100000, 100000] (40 GB), then reduced: a
// model of a few hundred bytes.
ir::Graph expandBomb() {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 1});
  const ir::ValueId e =
      b.op("Expand", "blow_up", {x, b.constant("shape", ir::Tensor::fromVector<int64_t>({2}, {100000, 100000}))});
  b.output(b.op("ReduceSum", "sum", {e}, rt::attrs({{"keepdims", int64_t{0}}})));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

TEST(MemoryBudget, TheReferenceEstimateFreesEachValueAfterItsLastUse) {
  const MemoryEstimate e = estimateReferenceRun(chain());
  // At most the input and two values live at once: Relu's output is freed
  // once Sigmoid ran, Sigmoid's once Tanh ran.
  EXPECT_EQ(e.peakBytes, 3 * 4000);
  EXPECT_EQ(e.unknownValues, 0);
  ASSERT_FALSE(e.largest.empty());
  EXPECT_EQ(e.largest[0].bytes, 4000);
}

TEST(MemoryBudget, ThePlanEstimateHoldsEveryOutputAndTheHostAddsTheWeights) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 256});
  const ir::ValueId w = b.constant("w", rt::randomTensor({256, 512}, 1));
  b.output(b.op("MatMul", "mm", {x, w}));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = b.graph();
  auto policy = schedule::makePolicy("sequential");
  ASSERT_TRUE(policy.ok()) << policy.errorText();
  auto plan = (*policy)->schedule(g, device::presetDevice("h100").value(), {});
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  const MemoryEstimate arena = estimatePlanRun(*plan, g, false);
  EXPECT_EQ(arena.peakBytes, 256 * 4 + 512 * 4);  // the input and MatMul's output
  const MemoryEstimate host = estimatePlanRun(*plan, g, true);
  EXPECT_EQ(host.peakBytes, arena.peakBytes + 256 * 512 * 4);  // and the weights
  ASSERT_FALSE(host.largest.empty());
  EXPECT_EQ(host.largest[0].name, "w");
}

TEST(MemoryBudget, AnExpandToFortyGigabytesIsRefusedNamingTheTensor) {
  const ir::Graph g = expandBomb();
  // The tensors alone peak while the sum runs: x, blow_up and y.
  EXPECT_EQ(estimateReferenceRun(g, /*scratch=*/false).peakBytes, 4 + int64_t{40'000'000'000} + 4);
  // The Expand itself gathers through an int64 source index per element
  // and an offset per row and column (ops::indexTableScratch): the peak.
  const int64_t index = 8 * (int64_t{10'000'000'000} + 200'000);
  const MemoryEstimate e = estimateReferenceRun(g);
  EXPECT_EQ(e.peakBytes, 4 + int64_t{40'000'000'000} + index);
  EXPECT_EQ(e.scratchBytes, index);
  ASSERT_FALSE(e.largest.empty());
  EXPECT_EQ(e.largest[0].name, "blow_up");

  auto inputs = makeRandomInputs(g, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.errorText();
  ReferenceOptions options;
  options.maxMemoryBytes = 1'000'000'000;
  auto r = runReference(g, *inputs, options);
  ASSERT_FALSE(r.ok());
  const std::string text = r.errorText();
  EXPECT_NE(text.find("the reference executor would need about 120 GB for the model's tensors and 80.0 GB of "
                      "working memory"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("memory budget of 1.00 GB"), std::string::npos) << text;
  EXPECT_NE(text.find("'blow_up' float32[100000, 100000] 40.0 GB"), std::string::npos) << text;

  // The default budget is half this machine's memory (a machine with 80 GB
  // or more skips this part rather than allocate 40 GB).
  if (defaultMemoryBudget() < int64_t{40'000'000'000}) {
    auto byDefault = runReference(g, *inputs);
    ASSERT_FALSE(byDefault.ok());
    EXPECT_NE(byDefault.errorText().find("half this machine's memory; --max-memory sets it"), std::string::npos)
        << byDefault.errorText();
  }
}

// Ops whose output holds no element allocate nothing in proportion to its
// other dims (issue #30 item 5): a Tile to [0, 2^30] runs the reference and
// costs no working memory in the estimate.
TEST(MemoryBudget, AZeroElementOutputCostsNothing) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("x", {0, 2});
  b.output(b.op("Tile", "tile", {x, b.constant("repeats", ir::Tensor::fromVector<int64_t>({2}, {1, 1 << 29}))}));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph g = b.graph();
  const MemoryEstimate e = estimateReferenceRun(g);
  EXPECT_EQ(e.peakBytes, 0);
  EXPECT_EQ(e.scratchBytes, 0);
  ReferenceOptions options;
  options.maxMemoryBytes = 1'000'000;  // a megabyte: any table of 2^30 entries would be refused or fail
  auto r = runReference(g, {ir::Tensor(ir::DType::Float32, {0, 2})}, options);
  ASSERT_TRUE(r.ok()) << r.errorText();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].shape(), (ir::Shape{0, int64_t{1} << 30}));
  EXPECT_EQ((*r)[0].numel(), 0);
}

TEST(MemoryBudget, RandomInputsAreRefusedBeforeAnyIsMade) {
  rt::GraphBuilder b;
  const ir::ValueId x = b.input("big", {50000, 50000});  // 10 GB of float32
  b.output(b.op("Relu", "r", {x}));
  ASSERT_TRUE(b.infer().empty());
  auto r = makeRandomInputs(b.graph(), 1, 100'000'000);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("the random inputs would need about 10.0 GB"), std::string::npos) << r.errorText();
  EXPECT_NE(r.errorText().find("'big'"), std::string::npos) << r.errorText();
}

std::string refusal(const ir::Graph& g, pipeline::RunTarget target, int64_t budget) {
  pipeline::Options o;
  o.policy = schedule::PolicyId::Wavefront;
  o.run.target = target;
  o.run.maxMemoryBytes = budget;
  pipeline::Artifacts given;
  given.original = std::make_shared<const ir::Graph>(g);
  const pipeline::StagesResult r = pipeline::runStages(o, given, pipeline::Stage::Optimize, pipeline::Stage::Run);
  EXPECT_FALSE(r.report.ok());
  return ir::formatDiagnostics(r.report.diagnostics);
}

std::string whoRuns(pipeline::RunTarget t) {
  return t == pipeline::RunTarget::Emulator ? "the emulator" : "the generated code on the CPU";
}

TEST(MemoryBudget, ARunOnTheCpuIsRefusedBeforePlanningWhenEvenTheReferencePeakIsOver) {
  // Fused into one operator, the chain holds its input and one output at
  // the reference's peak: 8,000 bytes, a lower bound of any plan's.
  for (auto target : {pipeline::RunTarget::Emulator, pipeline::RunTarget::Host}) {
    const std::string text = refusal(chain(), target, 6'000);
    EXPECT_NE(text.find(whoRuns(target) + " would need at least 8.00 KB"), std::string::npos) << text;
    EXPECT_NE(text.find("memory budget of 6.00 KB"), std::string::npos) << text;
  }
}

TEST(MemoryBudget, TheEmulatorAndTheHostHoldEveryOutputAndAreRefusedOnThat) {
  // x[1, 256] through three MatMuls: the reference holds at most x and two
  // products (3,072 bytes); a plan holds x and all three (4,096), the host
  // program the weights too.
  rt::GraphBuilder b;
  ir::ValueId v = b.input("x", {1, 256});
  for (int i = 0; i < 3; ++i)
    v = b.op("MatMul", "mm" + std::to_string(i),
             {v, b.constant("w" + std::to_string(i), rt::randomTensor({256, 256}, static_cast<uint32_t>(i)))});
  b.output(v);
  ASSERT_TRUE(b.infer().empty());
  EXPECT_EQ(estimateReferenceRun(b.graph()).peakBytes, 3 * 1024);
  const std::string emulator = refusal(b.graph(), pipeline::RunTarget::Emulator, 3'500);
  EXPECT_NE(emulator.find("the emulator would need about 4.10 KB"), std::string::npos) << emulator;
  const std::string host = refusal(b.graph(), pipeline::RunTarget::Host, 3'500);
  EXPECT_NE(host.find("the generated code on the CPU would need about 791 KB"), std::string::npos) << host;
  EXPECT_NE(host.find("largest tensors: 'w"), std::string::npos) << host;
}

TEST(MemoryBudget, AModelThatFitsRunsAsBefore) {
  const ir::Graph g = chain();
  auto inputs = makeRandomInputs(g, 3, 100'000);
  ASSERT_TRUE(inputs.ok()) << inputs.errorText();
  ReferenceOptions options;
  options.maxMemoryBytes = 12'000;  // exactly the estimate
  auto r = runReference(g, *inputs, options);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ((*r)[0].numel(), 1000);
}

}  // namespace
}  // namespace rammer::exec

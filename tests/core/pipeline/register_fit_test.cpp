// Fitting a plan's registers by compiling it (issue #45 item 5): what a
// spilling program is told (a cut while it has several functions, then more
// registers for its rKernels), the kernel source that carries the raised
// estimates, and the Schedule stage that re-plans until NVRTC reports no
// spills.
#include "core/pipeline/register_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/pipeline/pipeline.h"
#include "core/runtime/nvrtc_compiler.h"

namespace rammer::pipeline {
namespace {

namespace fs = std::filesystem;

bool haveNvrtc() { return runtime::NvrtcCompiler::load().ok(); }

// sample_cnn's wavefront plan and its CUDA, no compiler needed.
struct Generated {
  std::shared_ptr<const schedule::Plan> plan;
  std::shared_ptr<const codegen::GeneratedProgram> program;
};
Generated generatedCnn() {
  Options o;
  o.modelPath = RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx";
  o.import.batch = 1;
  o.policy = schedule::PolicyId::Wavefront;
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Generate);
  EXPECT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  return {p.artifacts().plan, p.artifacts().generated};
}

// What ptxas would say of program 0: `registers`, its own frame spilling
// `frameBytes`, and function `fn` spilling `fnBytes`.
runtime::ProgramResources spilling(int registers, int64_t frameBytes, int fn, int64_t fnBytes) {
  runtime::ProgramResources r;
  r.program = 0;
  r.usage.registers = registers;
  r.usage.spillStoreBytes = frameBytes;
  runtime::KernelResourceUsage f;
  f.spillStoreBytes = fnBytes;
  r.functions.emplace_back("rammer_fn" + std::to_string(fn), f);
  r.functionSpillStoreBytes = fnBytes;
  return r;
}

TEST(RegisterAdvice, AProgramOfSeveralFunctionsIsSplitWhereHalfOfThemHaveBeenCalled) {
  const Generated g = generatedCnn();
  ASSERT_TRUE(g.plan && g.program);
  ASSERT_EQ(g.plan->programs.size(), 1u);
  const std::vector<int32_t> ops = schedule::opsOfProgram(*g.plan, 0);
  ASSERT_GE(g.program->functionOps.size(), 3u) << "the sample needs several rKernel functions";
  const RegisterAdvice a = registerAdviceOf(*g.plan, *g.program, {spilling(128, 0, 1, 16)}, {}, {});
  EXPECT_TRUE(a.needs.empty());
  ASSERT_EQ(a.cutBefore.size(), 1u);
  const std::string& cut = *a.cutBefore.begin();
  EXPECT_NE(cut, g.plan->ops[static_cast<size_t>(ops.front())].name) << "a cut before the first operator cuts nothing";
  // Before the cut, no more than half of the program's functions are called.
  std::set<int32_t> before;
  for (int32_t op : ops) {
    if (g.plan->ops[static_cast<size_t>(op)].name == cut) break;
    for (size_t fn = 0; fn < g.program->functionOps.size(); ++fn) {
      const auto& fo = g.program->functionOps[fn];
      if (std::find(fo.begin(), fo.end(), op) != fo.end()) before.insert(static_cast<int32_t>(fn));
    }
  }
  EXPECT_GE(before.size(), 1u);
  EXPECT_LE(before.size(), g.program->functionOps.size() / 2 + 1);
  // The spilled operators are function 1's.
  std::set<std::string> fn1;
  for (int32_t op : g.program->functionOps[1]) fn1.insert(g.plan->ops[static_cast<size_t>(op)].name);
  EXPECT_EQ(a.spilled, fn1);

  // A schedule edit that forbids that cut moves it further on.
  schedule::Constraints noCut;
  noCut.noCutBefore.insert(cut);
  const RegisterAdvice moved = registerAdviceOf(*g.plan, *g.program, {spilling(128, 0, 1, 16)}, noCut, {});
  ASSERT_EQ(moved.cutBefore.size(), 1u);
  EXPECT_NE(*moved.cutBefore.begin(), cut);
}

TEST(RegisterAdvice, OperatorsThatSpilledThreeTimesGetOneRegisterMoreThanTheirKernelHad) {
  const Generated g = generatedCnn();
  ASSERT_TRUE(g.plan && g.program);
  std::map<std::string, int> thrice;
  for (int32_t op : g.program->functionOps[1]) thrice[g.plan->ops[static_cast<size_t>(op)].name] = 3;
  const RegisterAdvice a = registerAdviceOf(*g.plan, *g.program, {spilling(128, 0, 1, 16)}, {}, thrice);
  EXPECT_TRUE(a.cutBefore.empty());
  ASSERT_EQ(a.needs.size(), g.program->functionOps[1].size());
  for (int32_t op : g.program->functionOps[1]) {
    const schedule::PlannedOp& p = g.plan->ops[static_cast<size_t>(op)];
    auto it = a.needs.find({p.name, p.kernel.name});
    ASSERT_NE(it, a.needs.end()) << p.name;
    EXPECT_EQ(it->second, 129);
  }
  // Twice only: still split.
  for (auto& [op, n] : thrice) n = 2;
  EXPECT_EQ(registerAdviceOf(*g.plan, *g.program, {spilling(128, 0, 1, 16)}, {}, thrice).cutBefore.size(), 1u);
}

TEST(RegisterAdvice, TheKernelsOwnFrameSpillingRaisesEveryOperatorOfItsProgram) {
  const Generated g = generatedCnn();
  ASSERT_TRUE(g.plan && g.program);
  std::map<std::string, int> spilled;
  size_t computing = 0;
  for (int32_t op : schedule::opsOfProgram(*g.plan, 0)) {
    spilled[g.plan->ops[static_cast<size_t>(op)].name] = 3;
    computing += g.plan->ops[static_cast<size_t>(op)].isView ? 0 : 1;
  }
  const RegisterAdvice a = registerAdviceOf(*g.plan, *g.program, {spilling(64, 8, 0, 0)}, {}, spilled);
  EXPECT_EQ(a.needs.size(), computing);
  for (const auto& [key, n] : a.needs) EXPECT_EQ(n, 65) << key.first;
  // At the most registers a thread may have, nothing is left to ask for.
  EXPECT_TRUE(registerAdviceOf(*g.plan, *g.program, {spilling(255, 8, 0, 0)}, {}, spilled).empty());
  // Nothing spilled, nothing to change.
  EXPECT_TRUE(registerAdviceOf(*g.plan, *g.program, {spilling(128, 0, 1, 0)}, {}, {}).empty());
}

TEST(RegisterAdvice, TheKernelSourceRaisesOnlyTheNamedOperatorsRKernel) {
  const Generated g = generatedCnn();
  ASSERT_TRUE(g.plan);
  Options o;
  o.modelPath = RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx";
  o.import.batch = 1;
  Pipeline p(o);
  ASSERT_TRUE(p.run(Stage::Import, Stage::Optimize).ok());
  const ir::Graph& opt = *p.artifacts().optimized;
  // An operator with several candidates.
  const schedule::PlannedOp* conv = nullptr;
  for (const auto& op : g.plan->ops)
    if (!conv && !op.isView && op.options.size() >= 2) conv = &op;
  ASSERT_NE(conv, nullptr);
  auto plain = kernels::kernelsFor(opt, conv->node);
  ASSERT_TRUE(plain.ok());
  ASSERT_GE(plain->candidates.size(), 2u);
  const kernels::RKernel& first = plain->candidates.front();
  auto needs = std::make_shared<const RegisterNeeds>(RegisterNeeds{{{conv->name, first.name}, 200}});
  auto raised = withRegisterNeeds(kernels::kernelsFor, needs)(opt, conv->node);
  ASSERT_TRUE(raised.ok());
  ASSERT_EQ(raised->candidates.size(), plain->candidates.size());
  for (size_t i = 0; i < plain->candidates.size(); ++i)
    EXPECT_EQ(raised->candidates[i].regsEstimate,
              raised->candidates[i].name == first.name ? std::max(200, first.regsEstimate)
                                                       : plain->candidates[i].regsEstimate)
        << raised->candidates[i].name;
}

// squeezenet's wavefront program spills as the policy plans it (docs/
// PERFORMANCE.md, the spill table); fitted, it spills nothing and stays valid.
TEST(RegisterFitStage, AWavefrontProgramThatSpillsIsPlannedAgainUntilNothingSpills) {
  if (!haveNvrtc()) GTEST_SKIP() << "NVRTC not found";
  const fs::path model = fs::path(RAMMER_BINARY_DIR) / "samples" / "squeezenet.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << "the paper samples are not built";
  auto compiled = [&](bool fit) {
    Options o;
    o.modelPath = model.string();
    o.policy = schedule::PolicyId::Wavefront;
    o.fitRegisters = fit;
    auto p = std::make_unique<Pipeline>(o);
    const Report r = p->run(Stage::Import, Stage::Compile);
    EXPECT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
    return p;
  };
  auto spills = [](const Artifacts& a) {
    int64_t b = 0;
    for (const auto& r : a.compiled->programs) b += r.spillStoreBytes();
    return b;
  };
  const auto kept = compiled(false);
  ASSERT_TRUE(kept->artifacts().compiled);
  EXPECT_GT(spills(kept->artifacts()), 0) << "the unfitted plan should spill, or this test shows nothing";
  EXPECT_FALSE(kept->artifacts().registerFit);

  const auto fitted = compiled(true);
  const Artifacts& a = fitted->artifacts();
  ASSERT_TRUE(a.compiled && a.registerFit && a.validation);
  EXPECT_GE(a.registerFit->replans, 1);
  EXPECT_EQ(a.registerFit->spillBytes, 0);
  EXPECT_EQ(spills(a), 0);
  EXPECT_TRUE(a.validation->ok());
  EXPECT_GE(a.registerFit->cuts + a.registerFit->raised, 1u);
}

}  // namespace
}  // namespace rammer::pipeline

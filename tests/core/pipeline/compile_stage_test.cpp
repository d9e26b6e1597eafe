// The Compile stage (issue #44 item 4): Generate -> Compile in the one
// pipeline, NVRTC's registers reaching the plan's rKernels, a program the
// device cannot hold with them refused, the compile cached by source, and
// the stage's place in the stage graph (Export never waits for it).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/pipeline/compile_stage.h"
#include "core/pipeline/pipeline.h"
#include "core/runtime/cuda_build.h"
#include "tests/support/host_run.h"

namespace rammer::pipeline {
namespace {

Options cnnOptions() {
  Options o;
  o.modelPath = RAMMER_SOURCE_DIR "/samples/models/sample_cnn.onnx";
  o.import.batch = 1;
  return o;
}

bool haveNvrtc() { return runtime::NvrtcCompiler::load().ok(); }

TEST(CompileStage, SitsAfterGenerateAndExportDoesNotWaitForIt) {
  EXPECT_EQ(stageBefore(Stage::Compile), Stage::Generate);
  EXPECT_EQ(stageBefore(Stage::Export), Stage::Generate);
  EXPECT_TRUE(stageDependsOn(Stage::Compile, Stage::Generate));
  EXPECT_FALSE(stageDependsOn(Stage::Export, Stage::Compile));
  EXPECT_FALSE(stageDependsOn(Stage::Run, Stage::Compile));
  EXPECT_EQ(stagesBetween(Stage::Simulate, Stage::Compile),
            (std::vector<Stage>{Stage::Simulate, Stage::Generate, Stage::Compile}));
  EXPECT_EQ(stagesBetween(Stage::Generate, Stage::Export), (std::vector<Stage>{Stage::Generate, Stage::Export}));
  EXPECT_EQ(stageNamed("compile"), Stage::Compile);
  Artifacts a;
  a.compiled = std::make_shared<const CompiledCode>();
  a.resetFrom(Stage::Export);
  EXPECT_TRUE(a.compiled) << "a new export keeps the compile";
  a.resetFrom(Stage::Generate);
  EXPECT_FALSE(a.compiled) << "new code drops its compile";
}

TEST(CompileStage, CompiledRegistersReachThePlanAndFitItsShape) {
  if (!haveNvrtc()) GTEST_SKIP() << "NVRTC not found";
  Pipeline p(cnnOptions());
  const Report r = p.run(Stage::Import, Stage::Compile);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  EXPECT_FALSE(r.done(Stage::Run));
  const Artifacts& a = p.artifacts();
  ASSERT_TRUE(a.compiled && a.compiled->plan);
  const CompiledCode& c = *a.compiled;
  EXPECT_EQ(c.target, codegen::Target::Cuda);
  EXPECT_EQ(c.arch, "sm_90");  // the h100 preset
  EXPECT_EQ(c.compiler, "NVRTC");
  EXPECT_FALSE(c.version.empty());
  EXPECT_EQ(c.sourceHash, runtime::sourceHash(a.generated->source));
  const schedule::Plan& plan = *c.plan;
  ASSERT_EQ(c.programs.size(), plan.programs.size());
  for (const runtime::ProgramResources& pr : c.programs) {
    SCOPED_TRACE(pr.summary);
    const codegen::KernelLaunch& launch = a.generated->launches.at(static_cast<size_t>(pr.program));
    EXPECT_GT(pr.usage.registers, 0);
    EXPECT_EQ(pr.spillStoreBytes(), 0);
    // __launch_bounds__(threads, blocks) held the compiler to what the
    // program's vEUs need resident: every one of them.
    EXPECT_GE(pr.occupancy.blocksPerSM, launch.boundsBlocksPerSM);
    EXPECT_GE(pr.coResident, launch.gridBlocks);
  }
  // Every operator's rKernel in the compiled plan carries its program's
  // compiled count; the Schedule stage's plan keeps its estimates.
  for (size_t op = 0; op < plan.ops.size(); ++op) {
    if (plan.ops[op].isView) continue;
    int registers = 0;
    for (const runtime::ProgramResources& pr : c.programs)
      if (plan.programs.at(static_cast<size_t>(pr.program)).program.contains({static_cast<int32_t>(op), 0}))
        registers = std::max(registers, pr.usage.registers);
    EXPECT_GT(registers, 0) << plan.ops[op].name;
    EXPECT_EQ(plan.ops[op].kernel.regsEstimate, registers) << plan.ops[op].name;
    EXPECT_TRUE(plan.ops[op].kernel.regsCompiled) << plan.ops[op].name;
    EXPECT_FALSE(a.plan->ops[op].kernel.regsCompiled) << plan.ops[op].name;
  }
  EXPECT_NE(std::find_if(r.log.begin(), r.log.end(),
                         [](const std::string& l) { return l.find("NVRTC") != std::string::npos; }),
            r.log.end());
}

TEST(CompileStage, TheSameSourceIsCompiledOnce) {
  if (!haveNvrtc()) GTEST_SKIP() << "NVRTC not found";
  runtime::clearCompileCache();
  Pipeline p(cnnOptions());
  ASSERT_TRUE(p.run(Stage::Import, Stage::Compile).ok());
  ASSERT_FALSE(p.artifacts().compiled->cached);
  EXPECT_EQ(runtime::compileCacheSize(), 1u);
  const auto first = p.artifacts().compiled;
  // Generated again (same plan, same code): the compile comes from the cache
  // and the plan gets the same counts.
  const Report again = p.run(Stage::Generate, Stage::Compile);
  ASSERT_TRUE(again.ok()) << ir::formatDiagnostics(again.diagnostics);
  const auto second = p.artifacts().compiled;
  ASSERT_NE(first, second);
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(runtime::compileCacheSize(), 1u);
  EXPECT_EQ(second->sourceHash, first->sourceHash);
  ASSERT_EQ(second->programs.size(), first->programs.size());
  for (size_t i = 0; i < first->programs.size(); ++i)
    EXPECT_EQ(second->programs[i].summary, first->programs[i].summary);
  for (size_t op = 0; op < first->plan->ops.size(); ++op)
    EXPECT_EQ(second->plan->ops[op].kernel.regsEstimate, first->plan->ops[op].kernel.regsEstimate);
  EXPECT_NE(std::find_if(again.log.begin(), again.log.end(),
                         [](const std::string& l) { return l.find("(cached)") != std::string::npos; }),
            again.log.end());
  // An instrumented build is other code: compiled anew, and checked on a
  // copy, so the plan keeps the plain build's counts.
  schedule::Plan plan = *p.artifacts().plan;
  auto nvrtc = runtime::NvrtcCompiler::load();
  ASSERT_TRUE(nvrtc.ok());
  auto timed = runtime::buildCuda(plan, *p.artifacts().planGraph(), **nvrtc, "sm_90", /*instrument=*/true);
  ASSERT_TRUE(timed.ok()) << timed.errorText();
  EXPECT_FALSE(timed->cached);
  EXPECT_NE(timed->sourceHash, first->sourceHash);
  EXPECT_EQ(runtime::compileCacheSize(), 2u);
  for (const auto& op : plan.ops) EXPECT_FALSE(op.kernel.regsCompiled) << op.name;
}

TEST(CompileStage, AProgramTheDeviceCannotHoldWithTheCompiledCountsIsRefused) {
  if (!haveNvrtc()) GTEST_SKIP() << "NVRTC not found";
  Pipeline p(cnnOptions());
  ASSERT_TRUE(p.run(Stage::Import, Stage::Generate).ok());
  ASSERT_GE(p.artifacts().plan->programs.front().veusPerSM, 2);
  // Planned for an H100; compiled against a device of one SM, which holds
  // far fewer blocks of the kernel than the first launch's vEUs.
  auto halved = std::make_shared<schedule::Plan>(*p.artifacts().plan);
  const codegen::KernelLaunch& launch = p.artifacts().generated->launches.front();
  ASSERT_TRUE(launch.persistent);
  ASSERT_GT(launch.gridBlocks, 32) << "more vEUs than one SM can hold blocks";
  halved->device.sms = 1;
  p.artifacts().plan = halved;
  const Report r = p.run(Stage::Compile, Stage::Compile);
  ASSERT_EQ(r.failedStage, Stage::Compile);
  const std::string text = ir::formatDiagnostics(r.errors());
  EXPECT_NE(text.find("co-resident"), std::string::npos) << text;
  EXPECT_NE(text.find("program 0"), std::string::npos) << text;
  EXPECT_EQ(r.errors().front().stage, "compile");
  EXPECT_FALSE(p.artifacts().compiled);
}

// The host target's code is built by the system compiler in the same stage
// (cached on disk by everything that goes into it): a second compile finds
// the executable built.
TEST(CompileStage, BuildsTheHostTargetWithTheSystemCompiler) {
  if (!runtime::findHostCompiler().ok()) GTEST_SKIP() << "no C++ compiler";
  Options o = cnnOptions();
  o.generate.target = codegen::Target::Host;
  o.compile.host.cacheDir = testing::hostTestCache();
  Pipeline p(o);
  const Report r = p.run(Stage::Import, Stage::Compile);
  ASSERT_TRUE(r.ok()) << ir::formatDiagnostics(r.diagnostics);
  const auto first = p.artifacts().compiled;
  ASSERT_TRUE(first && first->host);
  EXPECT_EQ(first->target, codegen::Target::Host);
  EXPECT_TRUE(std::filesystem::is_regular_file(first->host->executable)) << first->host->executable;
  EXPECT_FALSE(first->compiler.empty());
  EXPECT_TRUE(first->programs.empty());  // registers are the GPU compiler's to say
  ASSERT_TRUE(p.run(Stage::Generate, Stage::Compile).ok());
  EXPECT_TRUE(p.artifacts().compiled->cached);
  EXPECT_EQ(p.artifacts().compiled->host->executable, first->host->executable);
}

TEST(CompileStage, NamesWhatItCannotCompile) {
  Options o = cnnOptions();
  o.generate.target = codegen::Target::Hip;
  Pipeline hip(o);
  Report r = hip.run(Stage::Import, Stage::Compile);
  ASSERT_EQ(r.failedStage, Stage::Compile);
  EXPECT_NE(ir::formatDiagnostics(r.errors()).find("hipcc"), std::string::npos) << ir::formatDiagnostics(r.errors());

  o.generate.target = codegen::Target::Cuda;
  o.compile.nvrtcLibraries = {"/nonexistent/libnvrtc.so"};
  Pipeline none(o);
  r = none.run(Stage::Import, Stage::Compile);
  ASSERT_EQ(r.failedStage, Stage::Compile);
  EXPECT_NE(ir::formatDiagnostics(r.errors()).find("needs NVRTC"), std::string::npos)
      << ir::formatDiagnostics(r.errors());

  Pipeline fresh(cnnOptions());
  r = fresh.run(Stage::Compile, Stage::Compile);
  ASSERT_EQ(r.failedStage, Stage::Compile);
  EXPECT_NE(ir::formatDiagnostics(r.errors()).find("no generated code yet"), std::string::npos);
}

}  // namespace
}  // namespace rammer::pipeline

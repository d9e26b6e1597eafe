// The host target's runtime and build, on generated code: outputs and
// timings of a real plan, hundreds of vEUs on one worker, the faults it
// must report instead of hanging or crashing (a wait cycle, a trap, divergent
// or miscounted __syncthreads, a segfault), compile errors with file and
// line, a missing compiler, and the build cache.
#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "core/codegen/code_generator.h"
#include "core/codegen/project_export.h"
#include "core/exec/reference_executor.h"
#include "core/runtime/host_execution.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/graph_builder.h"
#include "tests/support/host_run.h"
#include "tests/support/plan_mutation.h"
#include "tests/support/scatter_scan_graph.h"

namespace rammer::runtime {
namespace {

using testing::hostTestOptions;
using testing::optimizedSampleGraph;
using testing::planSample;

struct Planned {
  ir::Graph graph;
  schedule::Plan plan;
  std::vector<ir::Tensor> inputs;
};

Planned plannedSample(const std::string& name, const std::string& policy = "wavefront") {
  Planned p{optimizedSampleGraph(name), {}, {}};
  p.plan = planSample(p.graph, policy);
  p.inputs = testing::seededInputs(p.graph);
  return p;
}

// LayerNormalization over rows of 96 with Scale and B, as a plan can hold it.
ir::Graph layerNormGraph() {
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {6, 96});
  const ir::ValueId s = b.constant("scale", testing::randomTensor({96}, 3, 0.5f, 1.5f));
  const ir::ValueId bias = b.constant("bias", testing::randomTensor({96}, 4));
  b.output(b.op("LayerNormalization", "ln", {x, s, bias}, testing::attrs({{"axis", int64_t{-1}}})));
  EXPECT_TRUE(b.infer().empty());
  return b.graph();
}

// The program's source with `edit` applied to its kernel text, built and run.
ir::Result<HostExecution> runEdited(const Planned& p, const std::function<void(std::string&)>& edit) {
  HostExecutionOptions o = hostTestOptions();
  codegen::CodegenOptions co;
  co.target = codegen::Target::Host;
  co.instrument = true;
  auto program = codegen::generateProgram(p.plan, p.graph, co);
  if (!program) return program.errors();
  edit(program->source);
  auto build = buildHostProgram(*program, o.build);
  if (!build) return build.errors();
  return runHostProgram(HostProgram{std::move(program).value(), std::move(build).value()}, p.plan, p.graph, p.inputs,
                        o);
}

// The wrapper of the first rKernel with __syncthreads: {its syncCount, the rKernel function's name}.
std::pair<int, std::string> firstSyncingKernel(const std::string& source) {
  static const std::regex wrapper(R"(RAMMER_BLOCK_THREADS\(([1-9][0-9]*), ([A-Za-z0-9_]+)\()");
  std::smatch m;
  if (!std::regex_search(source, m, wrapper)) return {0, ""};
  return {std::stoi(m[1].str()), m[2].str()};
}

// The same for a plan's generated program.
std::pair<int, std::string> firstSyncingKernel(const Planned& p) {
  auto gp = codegen::generateProgram(p.plan, p.graph, {codegen::Target::Host, true});
  if (!gp) throw std::runtime_error(gp.errorText());
  return firstSyncingKernel(gp->source);
}

// Inserts `code` at the start of rKernel `function`'s body.
void insertAtStart(std::string& source, const std::string& function, const std::string& code) {
  const size_t at = source.find("__device__ void " + function + "(");
  ASSERT_NE(at, std::string::npos) << function;
  const size_t brace = source.find('{', at);
  source.insert(brace + 1, "\n" + code + "\n");
}

TEST(HostRun, SampleMatchesTheReferenceAndRecordsEveryRTask) {
  const Planned p = plannedSample("sample_cnn");
  auto want = exec::runReference(p.graph, p.inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  HostExecutionOptions o = hostTestOptions();
  o.measureTrace = true;
  o.repeat = 2;
  auto got = executeOnHost(p.plan, p.graph, p.inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4);
  EXPECT_GT(got->meanRunMs, 0.0);
  EXPECT_GE(got->workers, 1);
  EXPECT_NE(got->deviceName.find("host CPU"), std::string::npos) << got->deviceName;

  // The kernels' own timing words, through the GPU's decoder.
  ASSERT_TRUE(got->trace.has_value());
  const sim::Trace& t = *got->trace;
  EXPECT_EQ(t.tasks.size(), p.plan.numRTasks());
  EXPECT_EQ(t.metrics.at("unrecorded_rtasks"), 0.0);
  EXPECT_NE(t.source.find("steady clock"), std::string::npos) << t.source;
  for (const sim::TaskEvent& e : t.tasks) {
    EXPECT_LE(e.startUs, e.endUs);
    EXPECT_GE(e.sm, 0);
    EXPECT_LT(e.sm, got->workers);  // the "SM" is the worker thread
  }
  EXPECT_GT(t.totalUs, 0.0);
  // Barrier waits come from the plan's barriers around measured rTasks.
  EXPECT_FALSE(t.barriers.empty());
}

TEST(HostRun, HundredsOfVeusShareOneWorker) {
  const Planned p = plannedSample("inception_block");
  int veus = 0;
  for (const auto& prog : p.plan.programs) veus = std::max(veus, prog.program.numVEUs());
  // Its convolutions run at 128 registers: 2 vEUs per SM, 264 on an H100.
  ASSERT_GE(veus, 250) << "the H100 plan should use most of its 264 vEUs";
  auto want = exec::runReference(p.graph, p.inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  HostExecutionOptions o = hostTestOptions();
  o.workers = 1;  // every vEU on one OS thread: waits must yield, not spin
  auto got = executeOnHost(p.plan, p.graph, p.inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_EQ(got->workers, 1);
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4);
}

TEST(HostRun, AWaitCycleIsADeadlockNamingProgramVeusAndWhatTheyWaitFor) {
  Planned p = plannedSample("sample_cnn");
  ASSERT_EQ(p.plan.programs.size(), 1u);
  p.plan = testing::withWaitCycle(p.plan, 0, 0, 1);
  HostExecutionOptions o = hostTestOptions();
  o.timeoutSeconds = 120;
  const auto start = std::chrono::steady_clock::now();
  auto got = executeOnHost(p.plan, p.graph, p.inputs, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(got.ok());
  const std::string e = got.errorText();
  EXPECT_NE(e.find("deadlock in program 0"), std::string::npos) << e;
  EXPECT_NE(e.find("vEU 0 (its barrier, instruction 0) waits for vEU 1 to complete its instruction"), std::string::npos)
      << e;
  EXPECT_NE(e.find("vEU 1 (its barrier, instruction 0) waits for vEU 0 to complete its instruction"), std::string::npos)
      << e;
  EXPECT_NE(e.find("of 'stem'"), std::string::npos) << "the awaited rTask is named: " << e;
  EXPECT_NE(e.find("A wait cycle:\n  vEU 0 (its barrier"), std::string::npos) << e;
  EXPECT_LT(seconds, 60) << "detected, not timed out";
}

TEST(HostRun, MiscountedSyncthreadsAreReported) {
  const Planned p = plannedSample("sample_cnn");
  const auto [syncs, function] = firstSyncingKernel(p);
  ASSERT_GT(syncs, 0) << "sample_cnn has tiles with __syncthreads";
  const std::string from = "RAMMER_BLOCK_THREADS(" + std::to_string(syncs) + ", " + function + "(";

  auto more = runEdited(p, [&](std::string& s) {
    s.replace(s.find(from), from.size(), "RAMMER_BLOCK_THREADS(" + std::to_string(syncs + 1) + ", " + function + "(");
  });
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.errorText().find("declares syncCount " + std::to_string(syncs + 1) + " but thread 0 reached " +
                                  std::to_string(syncs)),
            std::string::npos)
      << more.errorText();

  auto none = runEdited(p, [&](std::string& s) {
    s.replace(s.find(from), from.size(), "RAMMER_BLOCK_THREADS(0, " + function + "(");
  });
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.errorText().find("calls __syncthreads() but declares syncCount 0"), std::string::npos)
      << none.errorText();
}

TEST(HostRun, DivergentSyncthreadsAreReported) {
  const Planned p = plannedSample("sample_cnn");
  const std::string function = firstSyncingKernel(p).second;
  // Thread 1 leaves early: the surplus-thread rule is broken.
  auto got = runEdited(p, [&](std::string& s) { insertAtStart(s, function, "if (tid == 1) return;"); });
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.errorText().find("threads diverge at __syncthreads (thread 0 waits at barrier 1, thread 1 has returned)"),
            std::string::npos)
      << got.errorText();
}

TEST(HostRun, ACrashInTheKernelsIsReportedWithWhereItHappened) {
  const Planned p = plannedSample("sample_cnn");
  const std::string function = firstSyncingKernel(p).second;
  auto got = runEdited(p, [&](std::string& s) {
    insertAtStart(s, function, "if (tid == 3) *(volatile float*)(unsigned long)(16 + rtask_id) = 1.0f;");
  });
  ASSERT_FALSE(got.ok());
  const std::string e = got.errorText();
  EXPECT_NE(e.find("SIGSEGV"), std::string::npos) << e;
  EXPECT_NE(e.find("program 0"), std::string::npos) << e;
  EXPECT_NE(e.find("thread 3"), std::string::npos) << e;
}

TEST(HostRun, AMissingInstructionTableTraps) {
  const Planned p = plannedSample("sample_cnn");
  auto got = runEdited(p, [](std::string& s) {
    const std::string magic = "#define RAMMER_TABLE_MAGIC ";
    const size_t at = s.find(magic);
    s.insert(at + magic.size(), "1 + ");
  });
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.errorText().find("the instruction table is missing or corrupt"), std::string::npos) << got.errorText();
}

TEST(HostBuild, ACompileErrorNamesTheFileAndLine) {
  const Planned p = plannedSample("sample_cnn");
  auto gp = codegen::generateProgram(p.plan, p.graph, {codegen::Target::Host, false});
  ASSERT_TRUE(gp.ok());
  gp->source += "\nstatic int broken = undeclared_name;\n";
  const std::string file = codegen::kernelsFileSource(*gp);
  const size_t line = static_cast<size_t>(std::count(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(
                                                                                     file.find("undeclared_name")),
                                                     '\n')) +
                      1;
  auto built = buildHostProgram(*gp, hostTestOptions().build);
  ASSERT_FALSE(built.ok());
  const std::string e = built.errorText();
  EXPECT_NE(e.find("compiling the generated kernels failed"), std::string::npos) << e;
  EXPECT_NE(e.find("kernels.cpp:" + std::to_string(line) + ":"), std::string::npos) << e;
  EXPECT_NE(e.find("undeclared_name"), std::string::npos) << e;
  EXPECT_NE(e.find("full log: "), std::string::npos) << e;
}

TEST(HostBuild, AMissingCompilerIsNamed) {
  const Planned p = plannedSample("sample_cnn");
  auto gp = codegen::generateProgram(p.plan, p.graph, {codegen::Target::Host, false});
  ASSERT_TRUE(gp.ok());
  HostCompilerOptions o = hostTestOptions().build;
  o.compiler = "no-such-cxx-compiler";
  auto built = buildHostProgram(*gp, o);
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.errorText().find("no C++ compiler for the host target: no-such-cxx-compiler not found"),
            std::string::npos)
      << built.errorText();
  o.compiler.clear();
  gp->target = codegen::Target::Cuda;
  auto cuda = buildHostProgram(*gp, o);
  ASSERT_FALSE(cuda.ok());
  EXPECT_NE(cuda.errorText().find("generated for cuda, not for the host target"), std::string::npos);
}

TEST(HostBuild, ASecondBuildOfTheSameSourceIsCached) {
  const Planned p = plannedSample("sample_cnn", "greedy");
  auto gp = codegen::generateProgram(p.plan, p.graph, {codegen::Target::Host, true});
  ASSERT_TRUE(gp.ok());
  auto first = buildHostProgram(*gp, hostTestOptions().build);
  ASSERT_TRUE(first.ok()) << first.errorText();
  auto second = buildHostProgram(*gp, hostTestOptions().build);
  ASSERT_TRUE(second.ok()) << second.errorText();
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->compileSeconds, 0.0);
  EXPECT_EQ(second->key, first->key);
  EXPECT_EQ(second->executable, first->executable);
  // Another source is another build.
  gp->source += "\n// a comment changes the key\n";
  auto third = buildHostProgram(*gp, hostTestOptions().build);
  ASSERT_TRUE(third.ok()) << third.errorText();
  EXPECT_NE(third->key, first->key);
}

// Both LayerNormalization rKernels (the block reduction's __syncthreads run
// as fibers) as generated code on the CPU, against the reference.
TEST(HostRun, LayerNormalizationRKernelsRunAsGeneratedCode) {
  const ir::Graph g = layerNormGraph();
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  for (const char* kernel : {"layernorm_block", "layernorm_rows"}) {
    SCOPED_TRACE(kernel);
    schedule::Constraints c;
    c.kernelFor["ln"] = kernel;
    const schedule::Plan plan = testing::planSample(g, "wavefront", "h100", c);
    auto got = executeOnHost(plan, g, inputs, testing::hostTestOptions());
    ASSERT_TRUE(got.ok()) << got.errorText();
    EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-5);
  }
}

// The online softmax of long rows (1,024 threads per row, each a fiber on
// the CPU, merging (max, sum) pairs through shared memory), against the
// reference.
TEST(HostRun, OnlineSoftmaxRunsAsGeneratedCode) {
  testing::GraphBuilder b;
  b.output(b.op("Softmax", "sm", {b.input("x", {2, 4096})}));
  ASSERT_TRUE(b.infer().empty());
  const ir::Graph& g = b.graph();
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  schedule::Constraints c;
  c.kernelFor["sm"] = "softmax_online";
  const schedule::Plan plan = testing::planSample(g, "wavefront", "h100", c);
  auto got = executeOnHost(plan, g, inputs, testing::hostTestOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-5);
}

// CumSum (reversed, exclusive) and ScatterND (negative and repeated index
// tuples) as generated code on the CPU, each rKernel variant, against the
// reference.
TEST(HostRun, ScanAndScatterRKernelsRunAsGeneratedCode) {
  const ir::Graph g = testing::scatterScanGraph();
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  const schedule::Plan plan = testing::planSample(g, "wavefront", "h100");
  auto got = executeOnHost(plan, g, inputs, testing::hostTestOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-6);
}

}  // namespace
}  // namespace rammer::runtime

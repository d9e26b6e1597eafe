// The generated program itself, run on the CPU (the host target), against
// the reference executor: every sample model the build writes, every
// policy, relative L2 error at most 1e-4; and every example schedule edit
// in resources/schedules, on the host target and on the emulator.
//
// The default run takes the small models, one LSTM model and one random
// graph (a few seconds of compiling each); RAMMER_HOST_ALL=1 runs every
// sample x policy (about 20 minutes on two cores: resnext29, deepspeech2 and
// lstm_tc run for seconds each on the CPU). docs/PERFORMANCE.md has the numbers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/schedule/schedule_edits.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/host_run.h"
#include "tests/samples/sample_helpers.h"
#include "tests/support/param_names.h"

namespace rammer {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> sampleNames() { return samples_test::buildSampleNames(); }

bool runAll() {
  const char* e = std::getenv("RAMMER_HOST_ALL");
  return e && std::string(e) == "1";
}

// What CI runs by default: every policy on the small models, the LSTM
// cells (a different family of rKernels) through seq2seq's Rammer plan, and
// randwire's Rammer plan (about 3.5 s: 96 random-graph nodes, sums of up to
// 6 inputs and Means of up to 9 sinks as generated code). squeezenet
// (about 3 s per policy) and inception_v3 only run with RAMMER_HOST_ALL=1.
bool inDefaultRun(const std::string& sample, const std::string& policy) {
  static const std::set<std::string> small = {"sample_cnn", "inception_block", "nasbench_cells"};
  return small.count(sample) || ((sample == "seq2seq" || sample == "randwire") && policy == "wavefront");
}

using testing::optimizedSampleGraph;
using testing::planSample;

class HostSample : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(HostSample, GeneratedProgramMatchesTheReference) {
  const auto& [sample, policy] = GetParam();
  if (!runAll() && !inDefaultRun(sample, policy)) GTEST_SKIP() << "in the long run only: RAMMER_HOST_ALL=1";
  const ir::Graph g = optimizedSampleGraph(sample);
  const schedule::Plan p = planSample(g, policy);
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  auto got = runtime::executeOnHost(p, g, inputs, testing::hostTestOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  const double err = testing::worstRelativeL2(got->outputs, *want);
  EXPECT_LE(err, 1e-4) << sample << " " << policy;
  std::cout << sample << " " << policy << ": relative L2 " << err << ", " << p.programs.size() << " programs, "
            << p.numRTasks() << " rTasks, compile " << got->build.compileSeconds << " s"
            << (got->build.cached ? " (cached)" : "") << ", run " << got->meanRunMs << " ms\n";
}

INSTANTIATE_TEST_SUITE_P(AllSamples, HostSample,
                         ::testing::Combine(::testing::ValuesIn(sampleNames()),
                                            ::testing::Values("sequential", "wavefront", "greedy", "ios", "graphturbo",
                                                              "dynamic")),
                         rammer::testing::ParamName());

// resources/schedules/MODEL_edits.json applied to MODEL, for every policy.
class HostScheduleEdits : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(HostScheduleEdits, RunOnTheHostAndTheEmulator) {
  const auto& [file, policy] = GetParam();
  const fs::path path = fs::path(RAMMER_SOURCE_DIR) / "resources/schedules" / file;
  const std::string model = file.substr(0, file.size() - std::string("_edits.json").size());
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const ir::Graph g = optimizedSampleGraph(model);
  auto constraints = schedule::parseScheduleEdits(text, &g, path.string());
  ASSERT_TRUE(constraints.ok()) << constraints.errorText();
  const schedule::Plan p = planSample(g, policy, "h100", *constraints);
  // The edits took: every pinned rKernel is the one used.
  for (const auto& [node, kernel] : constraints->kernelFor) {
    bool found = false;
    for (const auto& op : p.ops)
      if (schedule::graphOf(p, g).node(op.node).name == node) {
        EXPECT_EQ(op.kernel.name, kernel) << node;
        found = true;
      }
    EXPECT_TRUE(found) << node;
  }
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  auto emulated = exec::emulatePlan(p, g, inputs);
  ASSERT_TRUE(emulated.ok()) << emulated.errorText();
  EXPECT_LE(testing::worstRelativeL2(emulated->outputs, *want), 1e-4);
  auto got = runtime::executeOnHost(p, g, inputs, testing::hostTestOptions());
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4) << file << " " << policy;
}

std::vector<std::string> editFiles() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(RAMMER_SOURCE_DIR) / "resources/schedules"))
    if (e.path().filename().string().size() > 11 && e.path().string().ends_with("_edits.json"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Resources, HostScheduleEdits,
                         ::testing::Combine(::testing::ValuesIn(editFiles()),
                                            ::testing::Values("sequential", "wavefront", "greedy", "ios", "graphturbo")),
                         rammer::testing::ParamName());

}  // namespace
}  // namespace rammer

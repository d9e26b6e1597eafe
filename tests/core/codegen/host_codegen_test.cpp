// The host target is the same generator as CUDA's: its kernel text (all
// that follows the prelude) is byte for byte the CUDA emission's, for every
// policy and with or without instrumentation; the host prelude defines
// every CUDA name that text uses; a host export is a self-contained CMake
// project.
#include <gtest/gtest.h>

#include <sstream>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/codegen/code_generator.h"
#include "core/codegen/device_prelude.h"
#include "core/codegen/host_sources.h"
#include "core/codegen/project_export.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/support/param_names.h"

namespace rammer::codegen {
namespace {

using testing::optimizedSampleGraph;
using testing::planSample;

// Splits a generated source at the prelude markers: {prelude, kernel text}.
std::pair<std::string, std::string> split(const std::string& source) {
  const size_t begin = source.find(kPreludeBegin);
  const size_t end = source.find(kPreludeEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) return {};
  return {source.substr(begin, end - begin), source.substr(end)};
}

class HostKernelText : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(HostKernelText, EqualsTheCudaEmissionApartFromThePrelude) {
  const auto& [sample, policy] = GetParam();
  const ir::Graph g = optimizedSampleGraph(sample);
  const schedule::Plan plan = planSample(g, policy);
  for (const bool instrument : {false, true}) {
    auto cuda = generateProgram(plan, g, {Target::Cuda, instrument});
    auto host = generateProgram(plan, g, {Target::Host, instrument});
    ASSERT_TRUE(cuda.ok()) << cuda.errorText();
    ASSERT_TRUE(host.ok()) << host.errorText();
    const auto [cudaPrelude, cudaKernels] = split(cuda->source);
    const auto [hostPrelude, hostKernels] = split(host->source);
    ASSERT_FALSE(cudaKernels.empty());
    EXPECT_NE(cudaPrelude, hostPrelude);
    EXPECT_NE(hostPrelude.find("RAMMER_TARGET_HOST"), std::string::npos);
    // The whole kernel text: rKernel bodies, wrappers, kernel entry points.
    EXPECT_EQ(hostKernels, cudaKernels) << sample << " " << policy << (instrument ? " instrumented" : "");
    // And the same data: tables, buffers, launches.
    EXPECT_EQ(host->tableWords, cuda->tableWords);
    ASSERT_EQ(host->launches.size(), cuda->launches.size());
    for (size_t i = 0; i < host->launches.size(); ++i) {
      EXPECT_EQ(host->launches[i].kernel, cuda->launches[i].kernel);
      EXPECT_EQ(host->launches[i].gridBlocks, cuda->launches[i].gridBlocks);
      EXPECT_EQ(host->launches[i].blockThreads, cuda->launches[i].blockThreads);
    }
    EXPECT_EQ(host->buffers.size(), cuda->buffers.size());
    EXPECT_EQ(host->target, Target::Host);
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, HostKernelText,
                         ::testing::Combine(::testing::Values("sample_cnn", "inception_block", "lstm_tc"),
                                            ::testing::Values("sequential", "wavefront", "greedy", "dynamic")),
                         rammer::testing::ParamName());

// The lines of `text` a host compile sees: the branches of
// #if defined(RAMMER_TARGET_CUDA) / RAMMER_TARGET_HIP / !defined(
// RAMMER_TARGET_HOST) that only a GPU compiler reads are dropped (the
// rKernel bodies' library has such branches); other conditions are kept.
std::string hostVisible(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  std::vector<std::pair<bool, bool>> stack;  // (this branch taken, enclosing taken)
  auto taken = [&] { return stack.empty() || (stack.back().first && stack.back().second); };
  while (std::getline(in, line)) {
    const size_t at = line.find_first_not_of(' ');
    const std::string d = at == std::string::npos ? "" : line.substr(at);
    if (d.rfind("#if", 0) == 0) {
      const bool value = d.find("defined(RAMMER_TARGET_CUDA)") == std::string::npos &&
                         d.find("defined(RAMMER_TARGET_HIP)") == std::string::npos &&
                         d.find("!defined(RAMMER_TARGET_HOST)") == std::string::npos;
      const bool enclosing = taken();
      stack.emplace_back(value, enclosing);
      continue;
    }
    if (d.rfind("#else", 0) == 0 && !stack.empty()) {
      stack.back().first = !stack.back().first;
      continue;
    }
    if (d.rfind("#endif", 0) == 0 && !stack.empty()) {
      stack.pop_back();
      continue;
    }
    if (taken()) out += line + "\n";
  }
  return out;
}

// Every CUDA name the kernel text of the samples calls (intrinsics, atomics,
// the float math functions, the built-in index variables) is one the host
// prelude defines or one <math.h> has. A new rKernel that uses something
// else fails here, before any compiler sees it.
TEST(HostPrelude, DefinesEveryCudaNameTheSampleKernelsUse) {
  // <math.h>'s float functions, which the prelude includes.
  const std::set<std::string> libm = {"expf", "logf", "tanhf", "sqrtf", "fabsf", "fmaxf", "fminf", "fmaf", "powf",
                                      "erff", "floorf", "ceilf", "sinf", "cosf", "roundf", "truncf", "exp2f",
                                      "log1pf", "expm1f", "log2f", "fmodf", "isinf", "isnan", "erf"};
  const std::string prelude = std::string(hostSource(kHostHeader));
  const std::regex call(R"(\b(__[A-Za-z_][A-Za-z0-9_]*|atomic[A-Z][A-Za-z]*|[a-z][a-z0-9]*f|isinf|isnan|erf)\s*\()");
  const std::regex builtin(R"(\b(threadIdx|blockIdx|blockDim|gridDim)\b)");
  std::set<std::string> used;
  for (const std::string sample : {"sample_cnn", "inception_block", "nasbench_cells", "lstm_tc", "seq2seq"}) {
    const ir::Graph g = optimizedSampleGraph(sample);
    for (const std::string policy : {"sequential", "wavefront", "dynamic"}) {
      auto gp = generateProgram(planSample(g, policy), g, {Target::Host, true});
      ASSERT_TRUE(gp.ok()) << gp.errorText();
      const std::string kernels = hostVisible(split(gp->source).second);
      for (auto it = std::sregex_iterator(kernels.begin(), kernels.end(), call); it != std::sregex_iterator(); ++it)
        used.insert((*it)[1].str());
      for (auto it = std::sregex_iterator(kernels.begin(), kernels.end(), builtin); it != std::sregex_iterator(); ++it)
        used.insert((*it)[1].str());
    }
  }
  // Function names of the generated code itself are not CUDA's.
  std::set<std::string> missing;
  for (const std::string& name : used) {
    if (libm.count(name)) continue;
    const bool defined = prelude.find("#define " + name + " ") != std::string::npos ||
                         std::regex_search(prelude, std::regex("\\b" + name + "\\s*\\("));
    if (!defined) missing.insert(name);
  }
  EXPECT_TRUE(missing.empty()) << "the host prelude lacks: " << ::testing::PrintToString(missing);
  // The list is not empty by accident: the samples use the usual names.
  for (const char* expected : {"__syncthreads", "fmaf", "expf", "threadIdx", "blockIdx", "atomicAdd"})
    EXPECT_TRUE(used.count(expected)) << expected << " not seen in the sample kernels";
}

TEST(HostPrelude, IsTheHeaderInTheTree) {
  std::ifstream in(std::filesystem::path(RAMMER_SOURCE_DIR) / "core/codegen/host/rammer_host.h");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(header.empty());
  EXPECT_EQ(std::string(hostSource(kHostHeader)), header);
  EXPECT_NE(devicePrelude(Target::Host).find(header), std::string::npos);
}

TEST(HostExport, IsASelfContainedCMakeProject) {
  const ir::Graph g = optimizedSampleGraph("sample_cnn");
  auto gp = generateProgram(planSample(g, "wavefront"), g, {Target::Host, false});
  ASSERT_TRUE(gp.ok()) << gp.errorText();
  const auto dir = std::filesystem::path(RAMMER_BINARY_DIR) / "test-output" / "host_export_project";
  std::filesystem::remove_all(dir);
  ExportData data;
  data.modelName = "sample_cnn.onnx";
  data.policy = "wavefront";
  data.device = "h100";
  for (ir::ValueId v : g.inputs()) data.inputs.emplace_back(ir::DType::Float32, g.value(v).type.shape);
  for (ir::ValueId v : g.outputs()) data.expected.emplace_back(ir::DType::Float32, g.value(v).type.shape);
  auto written = writeProject(dir, *gp, g, data);
  ASSERT_TRUE(written.ok()) << written.errorText();
  for (const char* f : {"kernels.cpp", "main.cpp", "rammer_host.h", "rammer_host_runtime.cpp", "CMakeLists.txt",
                        "manifest.txt", "README.txt"})
    EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  std::ifstream cm(dir / "CMakeLists.txt");
  const std::string cmake((std::istreambuf_iterator<char>(cm)), std::istreambuf_iterator<char>());
  EXPECT_NE(cmake.find("boost_context"), std::string::npos);
  EXPECT_NE(cmake.find("RAMMER_TSAN"), std::string::npos);
  std::ifstream mf(dir / "manifest.txt");
  const std::string manifest((std::istreambuf_iterator<char>(mf)), std::istreambuf_iterator<char>());
  EXPECT_NE(manifest.find("target host"), std::string::npos);
  EXPECT_NE(written->buildCommand.find("-lboost_context"), std::string::npos);
}

}  // namespace
}  // namespace rammer::codegen

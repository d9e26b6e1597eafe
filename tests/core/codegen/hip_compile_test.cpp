// The HIP code of the small samples (Rammer, RammerBase and dynamic plans) compiles
// with Debian's clang-15 for gfx90a, warnings as errors: device code only,
// one clang call per sample. Skipped without clang-15 or the ROCm device
// libraries (scripts/setup installs them).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "core/codegen/code_generator.h"
#include "core/ops/op_registry.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/codegen/transformer_fixtures.h"
#include "tests/support/epilogue_graph.h"
#include "tests/support/global_pool_graph.h"
#include "tests/support/candidate_pins.h"
#include "tests/support/family_graph.h"
#include "tests/support/graph_builder.h"
#include "tests/support/scatter_scan_graph.h"
#include "tests/support/elementwise_graph.h"
#include "tests/support/word_graph.h"

namespace rammer::codegen {
namespace {

namespace fs = std::filesystem;

// Why HIP code cannot be compiled here; empty when it can.
std::string hipToolchainMissing(const std::string& clang) {
  if (clang.empty()) return "no clang-15";
  if (!fs::exists(testing::kRocmDeviceLibs) || !fs::exists("/usr/include/hip/hip_runtime.h"))
    return "no ROCm device libraries or HIP headers (rocm-device-libs, libamdhip64-dev)";
  return "";
}

// An empty work folder tests/codegen_work/hip/<name>.
fs::path freshDir(const std::string& name) {
  const fs::path dir = fs::path(RAMMER_BINARY_DIR) / "tests/codegen_work/hip" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Writes `source` as dir/file and compiles it for the device only: (exit status, output).
std::pair<int, std::string> compileForDevice(const std::string& clang, const fs::path& dir, const std::string& file,
                                             const std::string& source) {
  std::ofstream(dir / file) << source;
  return testing::runCommand("cd " + dir.string() + " && " + testing::hipCompileCommand(clang) + " --cuda-device-only -c " +
                             file);
}

class SampleHipCompile : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleHipCompile, WavefrontSequentialAndDynamicCompileForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const std::string name = GetParam();
  const fs::path dir = freshDir(name);
  const ir::Graph graph = testing::optimizedSampleGraph(name);
  std::string files;
  for (const auto& [policy, instrument] :
       {std::pair{"wavefront", true}, std::pair{"sequential", false}, std::pair{"dynamic", true}}) {
    CodegenOptions options;
    options.target = Target::Hip;
    options.instrument = instrument;
    auto gp = generateProgram(testing::planSample(graph, policy, "mi250x"), graph, options);
    ASSERT_TRUE(gp) << gp.errorText();
    const std::string file = std::string(policy) + ".hip";
    std::ofstream(dir / file) << gp->source;
    files += " " + file;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto [rc, out] = testing::runCommand("cd " + dir.string() + " && " + testing::hipCompileCommand(clang) +
                                             " --cuda-device-only -c" + files);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(rc, 0) << out.substr(0, 20000);
  std::printf("[ clang    ] %s: wavefront + sequential + dynamic, gfx90a: %.1f s\n", name.c_str(), seconds);
}

TEST(IosMergeHipCompile, MergedInceptionBlockCompilesForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("ios_merge");
  const ir::Graph graph = testing::optimizedSampleGraph("inception_block");
  CodegenOptions options;
  options.target = Target::Hip;
  auto gp = generateProgram(testing::planIosMerged(graph, "mi250x"), graph, options);
  ASSERT_TRUE(gp) << gp.errorText();
  const auto [rc, out] = compileForDevice(clang, dir, "ios_merge.hip", gp->source);
  EXPECT_EQ(rc, 0) << out.substr(0, 20000);
}

TEST(GraphTurboHipCompile, FusedGroupsOfTheInceptionBlockCompileForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("graphturbo");
  const ir::Graph graph = testing::optimizedSampleGraph("inception_block");
  CodegenOptions options;
  options.target = Target::Hip;
  const schedule::Plan plan = testing::planSample(graph, "graphturbo", "mi250x");
  ASSERT_NE(plan.graph, nullptr);
  auto gp = generateProgram(plan, graph, options);
  ASSERT_TRUE(gp) << gp.errorText();
  const auto [rc, out] = compileForDevice(clang, dir, "graphturbo.hip", gp->source);
  EXPECT_EQ(rc, 0) << out.substr(0, 20000);
}

// The wavefront program of `graph` for the MI250X (rKernels pinned by
// `pins`) compiles for gfx90a.
void expectWavefrontCompilesForGfx90a(const std::string& clang, const fs::path& dir, const ir::Graph& graph,
                                      const std::string& label, const schedule::Constraints& pins = {}) {
  CodegenOptions options;
  options.target = Target::Hip;
  auto gp = generateProgram(testing::planSample(graph, "wavefront", "mi250x", pins), graph, options);
  ASSERT_TRUE(gp) << label << ": " << gp.errorText();
  const auto [rc, out] = compileForDevice(clang, dir, label + ".hip", gp->source);
  EXPECT_EQ(rc, 0) << label << ":\n" << out.substr(0, 20000);
}

TEST(LayerNormHipCompile, BothRKernelsCompileForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("layernorm");
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {8, 768});
  const ir::ValueId s = b.constant("scale", testing::randomTensor({768}, 1));
  b.output(b.op("LayerNormalization", "ln", {x, s}, testing::attrs({{"axis", int64_t{-1}}})));
  ASSERT_TRUE(b.infer().empty());
  for (const char* kernel : {"layernorm_block", "layernorm_rows"}) {
    schedule::Constraints c;
    c.kernelFor["ln"] = kernel;
    expectWavefrontCompilesForGfx90a(clang, dir, b.graph(), kernel, c);
  }
}

// global_pool.cuh (issue #44 item 1): every variant of both global pools,
// instantiated by the generator, compiles for gfx90a (64-lane wavefronts).
TEST(GlobalPoolHipCompile, EveryVariantCompilesForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("global_pool");
  const ir::Graph g = testing::globalPoolGraph();
  for (const char* variant : testing::kGlobalPoolVariants)
    expectWavefrontCompilesForGfx90a(clang, dir, g, variant, testing::globalPoolPins(variant));
}

TEST(SoftmaxOnlineHipCompile, CompilesForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("softmax_online");
  testing::GraphBuilder b;
  b.output(b.op("Softmax", "sm", {b.input("x", {4, 4096})}));
  ASSERT_TRUE(b.infer().empty());
  schedule::Constraints c;
  c.kernelFor["sm"] = "softmax_online";
  expectWavefrontCompilesForGfx90a(clang, dir, b.graph(), "softmax_online", c);
}

TEST(TransformerHipCompile, OneLayerOfEachSampleCompilesForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("transformers");
  for (const char* name : {"bert_base", "gpt2_small", "vit_b16", "swin_t"})
    expectWavefrontCompilesForGfx90a(clang, dir, testing::oneLayerTransformer(name), name);
}

// Issue #44 item 1: every candidate of one operator of every family
// (tests/support/family_graph.h), each operator a program of its own, the
// HIP build of what tests/core/runtime/library_compile_test.cpp compiles
// with NVRTC.
TEST(LibraryHipCompile, EveryCandidateOfEveryFamilyCompilesForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const ir::Graph g = testing::familyGraph(1);
  const fs::path dir = freshDir("library");
  CodegenOptions options;
  options.target = Target::Hip;
  for (size_t pick = 0; pick < testing::maxCandidates(g); ++pick) {
    auto gp = generateProgram(testing::planSample(g, "sequential", "mi250x", testing::candidatePins(g, pick)), g, options);
    ASSERT_TRUE(gp) << "candidate " << pick << ": " << gp.errorText();
    const auto [rc, out] = compileForDevice(clang, dir, "candidate" + std::to_string(pick) + ".hip", gp->source);
    EXPECT_EQ(rc, 0) << "candidate " << pick << ":\n" << out.substr(0, 20000);
  }
}

TEST(ScatterScanHipCompile, CumSumAndScatterNDCompileForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  expectWavefrontCompilesForGfx90a(clang, freshDir("scatter_scan"), testing::scatterScanGraph(), "scatter_scan");
}

// Every element-wise op the fusion takes, as FusedElementwise rKernels
// (issue #30 item 1), the bool masks' word functions among them.
TEST(ElementwiseHipCompile, EveryFusedOpCompilesForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  expectWavefrontCompilesForGfx90a(clang, freshDir("every_elementwise"),
                                   testing::optimized(testing::everyElementwiseOp(), true), "every_elementwise");
}

// Integer and bool words: Gather by token ids, masks, Where, Cast, ArgMax,
// integer arithmetic (issue #30 item 2).
TEST(WordTensorsHipCompile, TokenIdsAndMasksCompileForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  expectWavefrontCompilesForGfx90a(clang, freshDir("word_tensors"), testing::optimized(testing::tokenMaskGraph(), true),
                                   "word_tensors");
}

// The split-K variants whose last chunk applies the epilogue (cuda/splitk.cuh).
TEST(EpilogueHipCompile, SplitKVariantsCompileForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("splitk_epilogue");
  const ir::Graph g = testing::optimized(testing::splitKEpilogueGraph(), true);
  for (bool gemmForMatMul : {true, false})
    expectWavefrontCompilesForGfx90a(clang, dir, g, gemmForMatMul ? "splitk_gemm" : "splitk_gemv",
                                     testing::splitKPins(g, gemmForMatMul));
}

// An LSTM cell carrying its recurrent product (gemv.cuh, rammer_gemv_gates),
// both column runs.
TEST(CellGemvHipCompile, BothWidthsCompileForGfx90a) {
  const std::string clang = testing::clangHipPath();
  if (const std::string why = hipToolchainMissing(clang); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = freshDir("cell_gemv");
  testing::GraphBuilder b;
  const int64_t H = 70, K = 37;
  auto outs = b.node("LstmCell", "cell",
                     {b.input("xw", {1, 4 * H}), ir::kNone, b.constant("bias", testing::randomTensor({4 * H}, 1)),
                      b.input("c", {1, H}), ir::kNone, b.input("h", {1, K}),
                      b.constant("rT", testing::randomTensor({K, 4 * H}, 2))},
                     testing::attrs({{"hidden_size", H}}), 2);
  b.graph().node(b.graph().value(outs[0]).producer).domain = ops::kRammerDomain;
  b.output(outs[0]);
  b.output(outs[1]);
  ASSERT_TRUE(b.infer().empty());
  for (const char* kernel : {"gemv_lstmcell_j32", "gemv_lstmcell_j8"}) {
    schedule::Constraints c;
    c.kernelFor["cell"] = kernel;
    expectWavefrontCompilesForGfx90a(clang, dir, b.graph(), kernel, c);
  }
}

INSTANTIATE_TEST_SUITE_P(SmallSamples, SampleHipCompile,
                         ::testing::Values("sample_cnn", "inception_block", "nasbench_cells"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rammer::codegen

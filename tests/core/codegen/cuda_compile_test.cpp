// Every sample's Rammer (wavefront) and RammerBase (sequential) program
// compiles with NVRTC -- what the runtime uses -- for sm_80 and sm_90,
// without warnings and without non-coherent (ld.global.nc) loads, which
// could read another vEU's output stale. NVRTC is loaded with dlopen; skipped without the CUDA
// toolkit. (nvcc builds the exported project: project_export_test.cpp.)
#include <gtest/gtest.h>

#include <chrono>

#include "core/codegen/code_generator.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/codegen/transformer_fixtures.h"
#include "tests/core/codegen/nvrtc_loader.h"
#include "tests/support/epilogue_graph.h"
#include "tests/support/global_pool_graph.h"
#include "tests/support/graph_builder.h"
#include "tests/support/scatter_scan_graph.h"

namespace rammer::codegen {
namespace {

// The wavefront program of `graph` (rKernels pinned by `pins`) compiles for
// sm_90 without warnings; returns its source for further checks.
std::string expectWavefrontCompilesForSm90(const testing::Nvrtc& nvrtc, const ir::Graph& graph, const std::string& label,
                                           const schedule::Constraints& pins = {}) {
  auto gp = generateProgram(testing::planSample(graph, "wavefront", "h100", pins), graph, {});
  EXPECT_TRUE(gp) << label << ": " << gp.errorText();
  if (!gp) return {};
  const testing::Nvrtc::Result r = nvrtc.compile(gp->source, label + ".cu", "sm_90");
  EXPECT_TRUE(r.ok) << label << ":\n" << r.log.substr(0, 20000);
  EXPECT_EQ(r.log.find("warning"), std::string::npos) << label << ":\n" << r.log.substr(0, 20000);
  return gp->source;
}

class SampleCudaCompile : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleCudaCompile, WavefrontForSm90AndInstrumentedSequentialForSm80Compile) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  const std::string name = GetParam();
  if (!std::filesystem::exists(testing::samplePath(name))) GTEST_SKIP() << testing::samplePath(name) << " not built";
  const ir::Graph graph = testing::optimizedSampleGraph(name);
  // The plain variant on Rammer for the H100, the instrumented one on
  // RammerBase for the A100: both code paths and both architectures for
  // every sample, at half the compile time of every pair (about 100 s of
  // CI's CPU).
  struct Case {
    const char* policy;
    bool instrument;
    const char* arch;
  };
  for (const auto& [policy, instrument, arch] : {Case{"wavefront", false, "sm_90"}, Case{"sequential", true, "sm_80"}}) {
    const schedule::Plan plan = testing::planSample(graph, policy);
    CodegenOptions options;
    options.instrument = instrument;
    auto gp = generateProgram(plan, graph, options);
    ASSERT_TRUE(gp) << gp.errorText();
    ASSERT_EQ(gp->launches.size(), plan.programs.size());
    const auto start = std::chrono::steady_clock::now();
    const testing::Nvrtc::Result r = nvrtc.compile(gp->source, name + "_" + policy + ".cu", arch);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(r.ok) << policy << " " << arch << ":\n" << r.log.substr(0, 20000);
    EXPECT_EQ(r.log.find("warning"), std::string::npos) << policy << " " << arch << ":\n" << r.log.substr(0, 20000);
    EXPECT_GT(r.cubinBytes, 0u);
    // Tensors written by one vEU and read by another within a persistent
    // kernel must not go through the non-coherent read-only cache.
    EXPECT_EQ(r.ptx.find(".nc."), std::string::npos) << policy << " " << arch << ": a non-coherent load";
    std::printf("[ nvrtc    ] %s %s %s: %.1f s, %zu KiB cubin, %lld functions\n", name.c_str(), policy, arch, seconds,
                r.cubinBytes / 1024, static_cast<long long>(gp->numFunctions));
  }
}

// A dynamic program (--policy dynamic: vEUs take rTasks from a ready queue)
// compiles for sm_90 on the small samples and an LSTM, instrumented on
// one: the gates are acquire-release atomics, the queue entries acquire
// loads, and nothing goes through the non-coherent cache.
TEST(DynamicCudaCompile, SmallSamplesAndAnLstmCompileForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  for (const std::string name : {"sample_cnn", "inception_block", "nasbench_cells", "seq2seq"}) {
    if (!std::filesystem::exists(testing::samplePath(name))) GTEST_SKIP() << testing::samplePath(name) << " not built";
    const ir::Graph graph = testing::optimizedSampleGraph(name);
    const schedule::Plan plan = testing::planSample(graph, "dynamic");
    ASSERT_TRUE(plan.programs.front().dynamic) << name;
    CodegenOptions options;
    options.instrument = name == "inception_block";
    auto gp = generateProgram(plan, graph, options);
    ASSERT_TRUE(gp) << gp.errorText();
    const auto start = std::chrono::steady_clock::now();
    const testing::Nvrtc::Result r = nvrtc.compile(gp->source, name + "_dynamic.cu", "sm_90");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(r.ok) << name << ":\n" << r.log.substr(0, 20000);
    EXPECT_EQ(r.log.find("warning"), std::string::npos) << name << ":\n" << r.log.substr(0, 20000);
    EXPECT_GT(r.cubinBytes, 0u);
    EXPECT_NE(r.ptx.find("atom.acq_rel.gpu"), std::string::npos) << name << ": no acquire-release gate";
    EXPECT_NE(r.ptx.find("ld.acquire.gpu"), std::string::npos) << name << ": no acquire load of a queue entry";
    EXPECT_EQ(r.ptx.find(".nc."), std::string::npos) << name << ": a non-coherent load";
    std::printf("[ nvrtc    ] %s dynamic sm_90%s: %.1f s, %zu KiB cubin\n", name.c_str(),
                options.instrument ? " instrumented" : "", seconds, r.cubinBytes / 1024);
  }
}

// IOS's merged convolutions (a plan on its own graph: a wide Conv and a
// Split) compile like any other plan.
TEST(IosMergeCudaCompile, MergedInceptionBlockCompilesForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  const ir::Graph graph = testing::optimizedSampleGraph("inception_block");
  const schedule::Plan plan = testing::planIosMerged(graph);
  auto gp = generateProgram(plan, graph, {});
  ASSERT_TRUE(gp) << gp.errorText();
  EXPECT_NE(gp->source.find("branch1x1.conv+branch5x5_1.conv+branch3x3dbl_1.conv"), std::string::npos);
  const testing::Nvrtc::Result r = nvrtc.compile(gp->source, "inception_block_ios_merge.cu", "sm_90");
  EXPECT_TRUE(r.ok) << r.log.substr(0, 20000);
  EXPECT_EQ(r.log.find("warning"), std::string::npos) << r.log.substr(0, 20000);
  EXPECT_GT(r.cubinBytes, 0u);
}

// GraphTurbo's fused groups (intermediates in shared memory, a barrier
// between members) compile like any other rKernel.
TEST(GraphTurboCudaCompile, FusedGroupsOfTheInceptionBlockCompileForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  const ir::Graph graph = testing::optimizedSampleGraph("inception_block");
  const schedule::Plan plan = testing::planSample(graph, "graphturbo");
  ASSERT_NE(plan.graph, nullptr);
  auto gp = generateProgram(plan, graph, {});
  ASSERT_TRUE(gp) << gp.errorText();
  EXPECT_NE(gp->source.find("_fused_group("), std::string::npos);
  const testing::Nvrtc::Result r = nvrtc.compile(gp->source, "inception_block_graphturbo.cu", "sm_90");
  EXPECT_TRUE(r.ok) << r.log.substr(0, 20000);
  EXPECT_EQ(r.log.find("warning"), std::string::npos) << r.log.substr(0, 20000);
  EXPECT_EQ(r.ptx.find(".nc."), std::string::npos) << "a non-coherent load";
  EXPECT_GT(r.cubinBytes, 0u);
}

// Both LayerNormalization rKernels compile (a transformer's normalization).
TEST(LayerNormCudaCompile, BothRKernelsCompileForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  testing::GraphBuilder b;
  const ir::ValueId x = b.input("x", {8, 768});
  const ir::ValueId s = b.constant("scale", testing::randomTensor({768}, 1));
  const ir::ValueId bias = b.constant("bias", testing::randomTensor({768}, 2));
  b.output(b.op("LayerNormalization", "ln", {x, s, bias}, testing::attrs({{"axis", int64_t{-1}}})));
  ASSERT_TRUE(b.infer().empty());
  for (const char* kernel : {"layernorm_block", "layernorm_rows"}) {
    schedule::Constraints c;
    c.kernelFor["ln"] = kernel;
    expectWavefrontCompilesForSm90(nvrtc, b.graph(), kernel, c);
  }
}

// The warp-per-row variants (issue #27 item 5) compile: global pooling,
// softmax and log-softmax over the innermost axis, a reduction.
TEST(WarpRowsCudaCompile, EveryWarpVariantCompilesForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  testing::GraphBuilder b;
  b.output(b.op("GlobalAveragePool", "gap", {b.input("x", {1, 21, 8, 8})}));
  b.output(b.op("GlobalMaxPool", "gmp", {b.input("y", {1, 5, 7, 9})}));
  b.output(b.op("Softmax", "sm", {b.input("s", {13, 64})}));
  b.output(b.op("LogSoftmax", "lsm", {b.input("l", {7, 45})}));
  b.output(b.op("ReduceMean", "mean", {b.input("r", {6, 70})}, testing::attrs({{"axes", std::vector<int64_t>{-1}}})));
  ASSERT_TRUE(b.infer().empty());
  schedule::Constraints c;
  c.kernelFor = {{"gap", "global_avgpool_warp"}, {"gmp", "global_maxpool_warp"}, {"sm", "softmax_warp"},
                 {"lsm", "logsoftmax_warp"},     {"mean", "reduce_warp"}};
  const std::string source = expectWavefrontCompilesForSm90(nvrtc, b.graph(), "warp rows", c);
  for (const auto& [node, kernel] : c.kernelFor) EXPECT_NE(source.find(kernel), std::string::npos) << kernel;
}

// global_pool.cuh (issue #44 item 1): every variant of both global pools
// compiles for sm_90 (SampleCudaCompile builds sample_cnn's for sm_80 too).
TEST(GlobalPoolCudaCompile, EveryVariantCompilesForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  const ir::Graph g = testing::globalPoolGraph();
  for (const char* variant : testing::kGlobalPoolVariants) {
    const std::string source = expectWavefrontCompilesForSm90(nvrtc, g, variant, testing::globalPoolPins(variant));
    EXPECT_NE(source.find(std::string("rammer_global_pool_") + variant + "<"), std::string::npos) << variant;
  }
}

// FusedConv / FusedGemm / FusedMatMul (issue #27 item 3) compile, with the
// GEMV and the depthwise rKernel pinned where the policy would pick others.
TEST(EpilogueCudaCompile, EveryKindOfEpilogueCompilesForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  const ir::Graph g = testing::optimizedEpilogueGraph(true);
  schedule::Constraints c;
  c.kernelFor = {{"fc", "gemv_kmajor"}, {"dw", "conv_depthwise"}};
  const std::string source = expectWavefrontCompilesForSm90(nvrtc, g, "epilogues", c);
  EXPECT_NE(source.find("fmaxf"), std::string::npos);  // the ReLUs
  EXPECT_NE(source.find("tanhf"), std::string::npos);
}

// The split-K variants whose last chunk applies the epilogue (cuda/splitk.cuh).
TEST(EpilogueCudaCompile, SplitKVariantsCompileForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  const ir::Graph g = testing::optimized(testing::splitKEpilogueGraph(), true);
  for (bool gemmForMatMul : {true, false}) {
    const std::string source = expectWavefrontCompilesForSm90(nvrtc, g, gemmForMatMul ? "splitk_gemm" : "splitk_gemv",
                                                              testing::splitKPins(g, gemmForMatMul));
    EXPECT_NE(source.find("rammer_splitk_epilogue<"), std::string::npos);
  }
}

// The online softmax for long rows compiles, for Softmax and LogSoftmax.
TEST(SoftmaxOnlineCudaCompile, CompilesForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    testing::GraphBuilder b;
    b.output(b.op(op, "sm", {b.input("x", {4, 4096})}));
    ASSERT_TRUE(b.infer().empty());
    schedule::Constraints c;
    c.kernelFor["sm"] = std::string(op == std::string("Softmax") ? "softmax" : "logsoftmax") + "_online";
    expectWavefrontCompilesForSm90(nvrtc, b.graph(), op, c);
  }
}

// A transformer layer of each sample (LayerNorm, 4-D batched MatMuls,
// softmax, the fused GELUs, the head transposes) and a GatherElements copy
// compile (issue #16 item 3).
TEST(TransformerCudaCompile, OneLayerOfEachSampleAndGatherElementsCompileForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  for (const char* name : {"bert_base", "gpt2_small", "vit_b16", "swin_t"}) {
    const std::string source = expectWavefrontCompilesForSm90(nvrtc, testing::oneLayerTransformer(name), name);
    EXPECT_NE(source.find("attention_flash"), std::string::npos) << name << ": no fused attention";
  }
  testing::GraphBuilder b;
  b.output(b.op("GatherElements", "ge",
                {b.input("x", {3, 4}), b.constant("idx", ir::Tensor::fromVector<int64_t>({3, 2}, {3, 0, -1, 1, 2, -4}))},
                testing::attrs({{"axis", int64_t{1}}})));
  ASSERT_TRUE(b.infer().empty());
  expectWavefrontCompilesForSm90(nvrtc, b.graph(), "gather_elements");
}

// The CumSum and ScatterND rKernels (a per-line scan, a baked slice table).
TEST(ScatterScanCudaCompile, CumSumAndScatterNDCompileForSm90) {
  const testing::Nvrtc nvrtc;
  if (!nvrtc.available()) GTEST_SKIP() << "NVRTC (libnvrtc.so) not found";
  const std::string source = expectWavefrontCompilesForSm90(nvrtc, testing::scatterScanGraph(), "scatter_scan");
  EXPECT_NE(source.find("cumsum_"), std::string::npos);
  EXPECT_NE(source.find("scatter_"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleCudaCompile, ::testing::ValuesIn(testing::codegenSampleNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rammer::codegen

// The GEMM / implicit-GEMM mainloop (core/kernels/cuda/gemm_mainloop.cuh)
// as generated code, without a GPU (issue #27 items 1, 3 and 7):
//  - every candidate of every GEMM and Conv node of an edge-shape graph
//    (M = 1, odd N, K not a multiple of the tile, unaligned rows, split-K,
//    batches, groups, 1-D/2-D/3-D windows, stride, dilation, padding) runs as
//    CUDA text on the host target and matches the reference executor;
//  - each variant compiles through NVRTC for sm_90 at its register budget
//    (its program alone: __launch_bounds__(threads, vEUs per SM)) with no
//    spill in its rKernel function and at most the kernel's loop counters
//    saved across the call, on the paper models' layer shapes, and nvcc
//    gives the same registers within 10%;
//  - the PTX has the mainloop's shape: 16-byte shared loads through 32-bit
//    addresses, vector global loads or cp.async copies in three stages, one
//    barrier per K step, no div/rem in the K loop.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "core/codegen/code_generator.h"
#include "core/exec/reference_executor.h"
#include "core/kernels/cuda_library.h"
#include "core/kernels/kernel_library.h"
#include "core/runtime/host_execution.h"
#include "core/runtime/program_compiler.h"
#include "core/runtime/ptxas_log.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/core/runtime/candidate_plans.h"
#include "tests/support/graph_builder.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

using testing::attrs;

// Small shapes that hit every edge of the tiles and of the loaders.
std::vector<NodeSpec> edgeSpecs() {
  return {
      {"MatMul", "m1_odd_k", {{1, 301}, {301, 70}}, {}},
      {"MatMul", "odd", {{37, 53}, {53, 29}}, {}},
      {"Gemm", "gemm_tb_bias", {{65, 40}, {33, 40}, {33}},
       attrs({{"transB", int64_t{1}}, {"alpha", 0.5f}, {"beta", 2.0f}})},
      {"Gemm", "gemm_ta", {{24, 19}, {24, 30}}, attrs({{"transA", int64_t{1}}})},
      {"Gemm", "gemm_ta_aligned", {{40, 64}, {40, 36}}, attrs({{"transA", int64_t{1}}})},
      {"MatMul", "batched", {{3, 20, 33}, {3, 33, 17}}, {}},
      {"MatMul", "folded", {{2, 3, 7, 18}, {18, 11}}, {}},
      {"MatMul", "two_tiles", {{130, 64}, {64, 140}}, {}},
      {"MatMul", "deep_k", {{5, 1000}, {1000, 9}}, {}},
      {"Gemm", "gemv_kmajor", {{3, 517}, {70, 517}, {70}}, attrs({{"transB", int64_t{1}}, {"beta", 0.5f}})},
      {"Gemm", "gemv_m16", {{16, 130}, {9, 130}}, attrs({{"transB", int64_t{1}}})},
      {"Conv", "c3x3", {{2, 5, 9, 9}, {7, 5, 3, 3}, {7}}, attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}})},
      {"Conv", "c1x1", {{2, 16, 8, 8}, {24, 16, 1, 1}}, {}},
      // One image: plain GEMMs with B copied by cp.async, 16-byte rows and 4-byte ones (25 columns).
      {"Conv", "c1x1_b1", {{1, 40, 6, 6}, {33, 40, 1, 1}, {33}}, {}},
      {"Conv", "c1x1_b1_odd_grouped", {{1, 24, 5, 5}, {12, 12, 1, 1}}, attrs({{"group", int64_t{2}}})},
      {"Conv", "strided_dilated", {{1, 3, 11, 13}, {6, 3, 3, 3}},
       attrs({{"strides", std::vector<int64_t>{2, 2}}, {"dilations", std::vector<int64_t>{2, 2}},
              {"pads", std::vector<int64_t>{2, 1, 2, 1}}})},
      {"Conv", "grouped", {{1, 8, 6, 6}, {8, 2, 3, 3}}, attrs({{"group", int64_t{4}}})},
      {"Conv", "depthwise", {{1, 4, 7, 7}, {4, 1, 3, 3}, {4}},
       attrs({{"group", int64_t{4}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}})},
      {"Conv", "c1d", {{1, 3, 20}, {4, 3, 5}}, attrs({{"pads", std::vector<int64_t>{2, 2}}})},
      {"Conv", "c3d", {{1, 2, 4, 5, 6}, {3, 2, 2, 3, 3}}, {}},
      {"Conv", "deep_conv", {{1, 64, 6, 6}, {32, 64, 3, 3}}, attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}})},
  };
}

// The paper models' large layers (alexnet, resnext29, an LSTM gate GEMM,
// BERT's attention scores): what the registers must hold at.
std::vector<NodeSpec> paperSpecs() {
  const auto pad = [](int64_t p) { return attrs({{"pads", std::vector<int64_t>{p, p, p, p}}}); };
  return {
      {"Conv", "alexnet_conv2", {{1, 64, 27, 27}, {192, 64, 5, 5}, {192}}, pad(2)},
      {"Conv", "alexnet_conv4", {{1, 384, 13, 13}, {256, 384, 3, 3}, {256}}, pad(1)},
      {"Conv", "resnext_1x1", {{1, 1024, 8, 8}, {1024, 1024, 1, 1}}, {}},
      {"Conv", "resnext_grouped", {{1, 1024, 8, 8}, {1024, 32, 3, 3}},
       attrs({{"group", int64_t{32}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}})},
      {"Gemm", "alexnet_fc1", {{1, 9216}, {4096, 9216}, {4096}}, attrs({{"transB", int64_t{1}}})},
      {"MatMul", "linear_nmajor", {{4, 768}, {768, 3072}}, {}},
      {"MatMul", "lstm_gates", {{1, 256}, {256, 1024}}, {}},
      {"MatMul", "bert_scores", {{12, 128, 64}, {12, 64, 128}}, {}},
  };
}

bool usesMainloop(const kernels::RKernel& k) {
  return std::find(k.cudaLibraries.begin(), k.cudaLibraries.end(), kernels::kGemmMainloop) != k.cudaLibraries.end();
}

TEST(MainloopHost, EveryCandidateOfEveryEdgeShapeMatchesTheReference) {
  const ir::Graph g = graphOf(edgeSpecs(), true);
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  const size_t plans = maxCandidates(g);
  ASSERT_GE(plans, 5u);  // 128x128, 64x64, 32x32, 16x64 and a split-K at least
  size_t splitK = 0, mainloop = 0;
  expectEveryCandidateMatches(g, inputs, *want, [&](const schedule::Plan& plan) {
    for (const auto& op : plan.ops) {
      mainloop += usesMainloop(op.kernel) ? 1 : 0;
      splitK += op.kernel.zeroOutputsFirst ? 1 : 0;
    }
  });
  EXPECT_GE(mainloop, 60u);
  EXPECT_GE(splitK, 4u);  // split-K GEMM and convolution both ran
}

// The kernel's and its rKernel functions' resources, per launch.
struct LaunchUse {
  std::string kernel, rkernel;
  int budget = 0, registers = 0;
  int64_t spills = 0;          // the kernel's and its rKernel functions', stores and loads
  int64_t functionSpills = 0;  // of which in the rKernel functions
  int64_t kernelSpillStores = 0;
};

std::vector<LaunchUse> compileAndRead(const NvrtcCompiler& nvrtc, const schedule::Plan& plan, const ir::Graph& g,
                                      std::string* source = nullptr, std::string* ptx = nullptr) {
  auto program = codegen::generateProgram(plan, g, persistent());
  EXPECT_TRUE(program.ok()) << program.errorText();
  if (!program) return {};
  auto compiled = compileProgram(nvrtc, *program, "sm_90");
  EXPECT_TRUE(compiled.ok()) << compiled.errorText();
  if (!compiled) return {};
  EXPECT_EQ(compiled->log.find("warning"), std::string::npos) << compiled->log.substr(0, 4000);
  if (source) *source = program->source;
  if (ptx) *ptx = compiled->ptx;
  std::vector<LaunchUse> out;
  for (const codegen::KernelLaunch& l : program->launches) {
    LaunchUse u;
    u.kernel = l.kernel;
    const kernels::RKernel* k = nullptr;
    std::string opName;
    for (size_t i = 0; i < plan.ops.size(); ++i) {
      const auto& info = plan.programs[static_cast<size_t>(l.program)];
      for (const auto& stream : info.program.streams())
        for (const auto& ins : stream)
          if (const auto* e = std::get_if<schedule::Exec>(&ins); e && static_cast<size_t>(e->task.op) == i)
            k = &plan.ops[i].kernel, opName = plan.ops[i].name;
    }
    u.rkernel = k ? opName + ": " + k->name : "?";
    u.budget = 65536 / (l.blockThreads * std::max(1, l.veusPerSM));
    u.registers = compiled->kernels.at(l.kernel).registers;
    u.spills = compiled->kernels.at(l.kernel).spillStoreBytes + compiled->kernels.at(l.kernel).spillLoadBytes;
    u.kernelSpillStores = compiled->kernels.at(l.kernel).spillStoreBytes;
    for (const std::string& f : l.functions)
      if (auto it = compiled->functions.find(f); it != compiled->functions.end())
        u.functionSpills += it->second.spillStoreBytes + it->second.spillLoadBytes;
    u.spills += u.functionSpills;
    out.push_back(u);
  }
  return out;
}

TEST(MainloopRegisters, EveryVariantCompilesWithoutSpillsAtItsBudget) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "NVRTC not found: " << nvrtc.errorText();
  const ir::Graph g = graphOf(paperSpecs(), false);
  std::set<int> budgets;
  for (size_t pick = 0; pick < maxCandidates(g); ++pick) {
    SCOPED_TRACE("candidate " + std::to_string(pick));
    const schedule::Plan plan = planWithCandidate(g, pick);
    for (const LaunchUse& u : compileAndRead(**nvrtc, plan, g)) {
      SCOPED_TRACE(u.kernel + " (" + u.rkernel + ")");
      std::printf("[ regs     ] %-44s budget %3d, %3d registers, %lld B spilled (%lld in the rKernel)\n",
                  u.rkernel.c_str(), u.budget, u.registers, static_cast<long long>(u.spills),
                  static_cast<long long>(u.functionSpills));
      EXPECT_LE(u.registers, u.budget);
      // No spill in the rKernel's own code. The persistent kernel around it
      // may save its loop counters across the call (ABI saves: a few words
      // per rTask, outside the rKernel's loops).
      EXPECT_EQ(u.functionSpills, 0);
      EXPECT_LE(u.kernelSpillStores, 32);
      budgets.insert(u.budget);
    }
  }
  EXPECT_TRUE(budgets.count(128) && budgets.count(64)) << "both register budgets compiled";
}

TEST(MainloopRegisters, NvccAgreesWithNvrtcWithinTenPercent) {
  auto nvrtc = NvrtcCompiler::load();
  const std::string nvcc = testing::nvccPath();
  if (!nvrtc || nvcc.empty()) GTEST_SKIP() << "needs NVRTC and nvcc";
  const ir::Graph g = graphOf(paperSpecs(), false);
  const auto dir = std::filesystem::temp_directory_path() / ("rammer_nvcc_regs_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (size_t pick : {size_t{0}, size_t{1}}) {
    std::string source;
    const std::vector<LaunchUse> viaNvrtc = compileAndRead(**nvrtc, planWithCandidate(g, pick), g, &source);
    const auto cu = dir / ("p" + std::to_string(pick) + ".cu");
    std::ofstream(cu) << source;
    const auto [rc, log] = testing::runCommand(nvcc + " -arch=sm_90 -std=c++17 -cubin -Xptxas -v -o " +
                                               (dir / "p.cubin").string() + " " + cu.string() + " 2>&1");
    ASSERT_EQ(rc, 0) << log.substr(0, 4000);
    const auto viaNvcc = parsePtxasLog(log);
    for (const LaunchUse& u : viaNvrtc) {
      SCOPED_TRACE(u.kernel + " (" + u.rkernel + ")");
      ASSERT_TRUE(viaNvcc.count(u.kernel));
      const int other = viaNvcc.at(u.kernel).registers;
      EXPECT_LE(std::abs(other - u.registers), u.registers / 10) << "NVRTC " << u.registers << ", nvcc " << other;
    }
  }
  std::filesystem::remove_all(dir);
}

// The PTX bodies of the generated mainloop functions (.func rammer_fnN
// with 16-byte shared loads), from the .func line to the closing brace.
std::vector<std::string> mainloopBodies(const std::string& ptx) {
  const std::regex func(R"(\.func[^\n]*rammer_fn\d+)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), func); it != std::sregex_iterator(); ++it) {
    const size_t begin = static_cast<size_t>(it->position());
    const std::string body = ptx.substr(begin, ptx.find("\n}\n", begin) - begin);
    if (body.find("ld.shared.v4.f32") != std::string::npos) out.push_back(body);
  }
  return out;
}

// Checks the mainloop's barriers: two in all (one before the K loop, one
// per step in it). Returns the K loop: from the label that the first
// backward branch after the second barrier jumps to, to that branch.
std::string kLoopOf(const std::string& body) {
  std::vector<size_t> bars;
  for (size_t at = body.find("bar.sync"); at != std::string::npos; at = body.find("bar.sync", at + 1))
    bars.push_back(at);
  EXPECT_EQ(bars.size(), 2u) << "one barrier per K step and one before the loop";
  if (bars.size() < 2) return {};
  const std::regex branch(R"(bra(\.uni)?\s+(\$L__\w+);)");
  for (auto b = std::sregex_iterator(body.begin() + static_cast<std::ptrdiff_t>(bars[1]), body.end(), branch);
       b != std::sregex_iterator(); ++b) {
    const size_t label = body.find((*b)[2].str() + ":");
    const size_t at = bars[1] + static_cast<size_t>(b->position());
    if (label < bars[1]) return body.substr(label, at - label);
  }
  return {};
}

// The K loop as PTX: the mainloop's loads and no division.
TEST(MainloopPtx, SharedFragmentsAreVectorLoadsThroughThirtyTwoBitAddresses) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "NVRTC not found: " << nvrtc.errorText();
  const ir::Graph g = graphOf({paperSpecs()[1], paperSpecs()[4]}, false);  // alexnet conv4 and fc1
  std::string ptx;
  compileAndRead(**nvrtc, planWithCandidate(g, 0), g, nullptr, &ptx);
  ASSERT_FALSE(ptx.empty());
  const std::vector<std::string> bodies = mainloopBodies(ptx);
  for (const std::string& body : bodies) {
    EXPECT_EQ(std::regex_search(body, std::regex(R"(ld\.shared\.v4\.f32[^\[]*\[%rd)")), false)
        << "a 64-bit shared address";
    EXPECT_TRUE(std::regex_search(body, std::regex(R"(ld(\.global)?\.v[24]\.f32)"))) << "no vector global load";
    const std::string loop = kLoopOf(body);
    ASSERT_FALSE(loop.empty()) << "no K loop around the second barrier";
    EXPECT_FALSE(std::regex_search(loop, std::regex(R"(\b(div|rem)\.)"))) << "a division in the K loop";
    EXPECT_NE(loop.find("ld.shared.v4.f32"), std::string::npos);
  }
  EXPECT_EQ(bodies.size(), 2u);
}

// Operands contiguous along m or n (row-major B, a 1x1 convolution's input
// over one image) reach shared memory by 16-byte cp.async, two steps ahead:
// every K step issues copies, commits a group and waits for all but the
// latest before its one barrier.
TEST(MainloopPtx, ContiguousRowsAreCopiedByCpAsyncThreeStagesDeep) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "NVRTC not found: " << nvrtc.errorText();
  const ir::Graph g = graphOf({paperSpecs()[2], paperSpecs()[7]}, false);  // resnext's 1x1 conv, BERT's scores
  size_t async = 0;
  for (size_t pick = 0; pick < maxCandidates(g); ++pick) {
    SCOPED_TRACE("candidate " + std::to_string(pick));
    std::string ptx;
    compileAndRead(**nvrtc, planWithCandidate(g, pick), g, nullptr, &ptx);
    ASSERT_FALSE(ptx.empty());
    for (const std::string& body : mainloopBodies(ptx)) {
      if (body.find("cp.async") == std::string::npos) continue;
      ++async;
      EXPECT_NE(body.find("cp.async.cg.shared.global"), std::string::npos) << "no 16-byte copy";
      EXPECT_NE(body.find("cp.async.ca.shared.global"), std::string::npos) << "no 4-byte path for unaligned rows";
      const std::string loop = kLoopOf(body);
      ASSERT_FALSE(loop.empty()) << "no K loop around the second barrier";
      EXPECT_NE(loop.find("cp.async.cg.shared.global"), std::string::npos) << "the loop issues no copy";
      EXPECT_NE(loop.find("cp.async.commit_group"), std::string::npos);
      EXPECT_NE(loop.find("cp.async.wait_group 1"), std::string::npos) << "not three stages";
      EXPECT_FALSE(std::regex_search(loop, std::regex(R"(\b(div|rem)\.)"))) << "a division in the K loop";
    }
  }
  EXPECT_GE(async, 4u);  // each node's 64x64 and 32x32 variants at least
}

}  // namespace
}  // namespace rammer::runtime

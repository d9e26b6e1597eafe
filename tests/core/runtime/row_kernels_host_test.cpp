// The row-wise rKernels whose bodies are CUDA templates (issue #27 item 6:
// core/kernels/cuda/softmax.cuh, layer_norm.cuh, attention.cuh, on
// block_reduce.cuh; issue #44 item 1: global_pool.cuh): every candidate of every node run as generated code on
// the host target against the reference executor, in the forms the
// templates branch on (a strided softmax axis, scalar and absent scale and
// bias, a broadcast attention mask, ragged last rows and key tiles).
// NVRTC compiles the same text (tests/core/codegen/cuda_compile_test.cpp).
#include <gtest/gtest.h>

#include <set>

#include "core/exec/reference_executor.h"
#include "core/kernels/cuda_library.h"
#include "core/ops/op_registry.h"
#include "tests/core/runtime/candidate_plans.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

ir::Graph rowGraph() {
  testing::GraphBuilder b;
  uint32_t seed = 40;
  auto weight = [&](const std::string& name, ir::Shape s) { return b.constant(name, testing::randomTensor(s, ++seed)); };
  // Softmax over a middle axis: rows 5 elements apart.
  b.output(b.op("Softmax", "softmax_mid", {b.input("s.x", {2, 37, 5})}, testing::attrs({{"axis", int64_t{1}}})));
  b.output(b.op("LogSoftmax", "logsoftmax_rows", {b.input("l.x", {30, 40})}));
  b.output(b.op("LayerNormalization", "ln_vector",
                {b.input("ln.x", {3, 70, 96}), weight("ln.scale", {96}), weight("ln.bias", {96})}));
  b.output(b.op("LayerNormalization", "ln_scalar_no_bias", {b.input("ls.x", {130, 40}), weight("ls.scale", {1})}));
  ir::Attributes scale;
  scale.set("scale", 0.25f);
  b.output(b.node("Attention", "attn_masked",
                  {b.input("a.q", {2, 3, 70, 16}), b.input("a.kt", {2, 3, 16, 45}), b.input("a.v", {2, 3, 45, 8}),
                   b.input("a.mask", {2, 1, 70, 45})},
                  scale)[0]);
  b.output(b.node("Attention", "attn_plain", {b.input("p.q", {4, 33, 8}), b.input("p.kt", {4, 8, 100}),
                                              b.input("p.v", {4, 100, 8})},
                  scale)[0]);
  // Global pooling (issue #44 item 1: global_pool.cuh): planes long enough
  // for all three variants, a plane of 33 (a warp and one lane more), and
  // 300 short planes (thread-per-plane rTasks with a ragged last one).
  b.output(b.op("GlobalAveragePool", "gap_planes", {b.input("g.x", {2, 5, 7, 7})}));
  b.output(b.op("GlobalMaxPool", "gmp_odd", {b.input("m.x", {3, 7, 33})}));
  b.output(b.op("GlobalAveragePool", "gap_many", {b.input("n.x", {1, 300, 3, 3})}));
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(b.graph().numNodes()); ++id)
    if (b.graph().node(id).opType == "Attention") b.graph().node(id).domain = ops::kRammerDomain;
  const auto errors = b.infer();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().message);
  return b.graph();
}

TEST(RowKernelsHost, EveryCandidateOfTheTemplateBodiesMatchesTheReference) {
  const ir::Graph g = rowGraph();
  std::set<std::string> libraries;  // the .cuh files the candidates instantiate
  for (ir::NodeId id : order(g)) {
    auto ks = kernels::kernelsFor(g, id);
    ASSERT_TRUE(ks.ok()) << ks.errorText();
    for (const kernels::RKernel& k : ks->candidates) {
      ASSERT_FALSE(k.cudaLibraries.empty()) << k.name << " has no template body";
      // The rKernel's own text is an instantiation, not a loop nest.
      EXPECT_EQ(k.cudaSource.find("for ("), std::string::npos) << k.name << ":\n" << k.cudaSource;
      libraries.insert(k.cudaLibraries.begin(), k.cudaLibraries.end());
    }
  }
  // (attention.cuh's mask rows are an index_math.cuh box.)
  EXPECT_EQ(libraries, (std::set<std::string>{kernels::kBlockReduce, kernels::kSoftmax, kernels::kLayerNorm,
                                              kernels::kAttention, kernels::kGlobalPool, kernels::kIndexMath}));
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  std::set<std::string> ran;  // rKernel names that ran
  expectEveryCandidateMatches(g, inputs, *want, [&](const schedule::Plan& plan) {
    for (const auto& op : plan.ops) ran.insert(op.kernel.name);
  });
  for (const char* name : {"softmax_rows", "softmax_block", "logsoftmax_warp", "layernorm_block", "layernorm_rows",
                           "attention_flash_r64", "attention_flash_r32", "global_avgpool_thread", "global_avgpool_block",
                           "global_avgpool_warp", "global_maxpool_thread", "global_maxpool_block",
                           "global_maxpool_warp"})
    EXPECT_TRUE(ran.count(name)) << name << " never ran";
}

}  // namespace
}  // namespace rammer::runtime

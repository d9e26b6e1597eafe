// The RNN cells that carry their recurrent product (issue #27 item 4,
// ops::CellRecurrence): the GEMV family's gates variant (gemv.cuh,
// rammer_gemv_gates) with the gate arithmetic as its epilogue. Every
// candidate of every cell kind runs as generated code on the host target
// against the reference executor, on edge shapes (H not a multiple of the
// column run, odd K, the largest batch the variant takes, peepholes, clip,
// other activations); NVRTC compiles the same text for sm_90 without a
// spill at the 64-register budget.
#include <gtest/gtest.h>

#include <set>

#include "core/codegen/code_generator.h"
#include "core/exec/reference_executor.h"
#include "core/kernels/cuda_library.h"
#include "core/ops/op_registry.h"
#include "core/ops/rnn/cell_ops.h"
#include "core/runtime/program_compiler.h"
#include "tests/core/runtime/candidate_plans.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

using testing::attrs;

ir::Graph cellGraph() {
  testing::GraphBuilder b;
  uint32_t seed = 70;
  auto weight = [&](const std::string& name, ir::Shape s) {
    return b.constant(name, testing::randomTensor(std::move(s), ++seed));
  };
  auto cell = [&](const std::string& op, const std::string& name, std::vector<ir::ValueId> in, size_t outputs,
                  ir::Attributes a) {
    auto outs = b.node(op, name, std::move(in), std::move(a), outputs);
    b.graph().node(b.graph().value(outs[0]).producer).domain = ops::kRammerDomain;
    for (ir::ValueId v : outs) b.output(v);
  };
  const ir::ValueId none = ir::kNone;
  {  // LSTM, batch 1, H = 70 (a ragged last run of 32 and of 8), K = 37, peepholes, clip.
    const int64_t B = 1, H = 70, K = 37;
    cell(ops::kLstmCellOp, "lstm_b1",
         {b.input("l1.xw", {B, 4 * H}), none, weight("l1.bias", {4 * H}), b.input("l1.c", {B, H}),
          weight("l1.P", {3 * H}), b.input("l1.h", {B, K}), weight("l1.rT", {K, 4 * H})},
         2, attrs({{"hidden_size", H}, {"clip", 2.5f}}));
  }
  {  // LSTM at the largest batch the gates variant takes (4 x 4 blocks), no c_prev, no bias.
    const int64_t B = 4, H = 20;
    cell(ops::kLstmCellOp, "lstm_b4",
         {b.input("l4.xw", {B, 4 * H}), none, none, none, none, b.input("l4.h", {B, H}),
          weight("l4.rT", {H, 4 * H})},
         2, attrs({{"hidden_size", H}, {"input_forget", int64_t{1}}}));
  }
  {  // GRU, linear_before_reset = 0: both halves.
    const int64_t B = 3, H = 33;
    cell(ops::kGruGatesOp, "gru_gates",
         {b.input("g.xw", {B, 3 * H}), none, weight("g.bias", {3 * H}), b.input("g.hprev", {B, H}),
          b.input("g.h", {B, H}), weight("g.rT", {H, 2 * H})},
         2, attrs({{"hidden_size", H}}));
    cell(ops::kGruCandidateOp, "gru_candidate",
         {b.input("c.xw", {B, 3 * H}), none, weight("c.bias", {3 * H}), b.input("c.z", {B, H}),
          b.input("c.hprev", {B, H}), b.input("c.rh", {B, H}), weight("c.rT", {H, H})},
         1, attrs({{"hidden_size", H}}));
  }
  {  // GRU, linear_before_reset = 1, other activations; 5 x 3 blocks.
    const int64_t B = 5, H = 9, K = 300;
    cell(ops::kGruCellOp, "gru_cell",
         {b.input("r.xw", {B, 3 * H}), none, weight("r.bias", {3 * H}), weight("r.rbh", {H}),
          b.input("r.hprev", {B, H}), b.input("r.h", {B, K}), weight("r.rT", {K, 3 * H})},
         1, attrs({{"hidden_size", H}, {"activations", std::vector<std::string>{"HardSigmoid", "Relu"}}}));
  }
  const auto errors = b.infer();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().message);
  return b.graph();
}

TEST(CellGemvHost, EveryCandidateOfEveryCellKindMatchesTheReference) {
  const ir::Graph g = cellGraph();
  for (ir::NodeId id : order(g)) {
    auto ks = kernels::kernelsFor(g, id);
    ASSERT_TRUE(ks.ok()) << ks.errorText();
    for (const kernels::RKernel& k : ks->candidates) {
      EXPECT_EQ(k.family, "gemv") << k.name;
      EXPECT_EQ(k.cudaLibraries, (std::vector<std::string>{kernels::kGemv, kernels::kElementLoop, kernels::kCell,
                                                           kernels::kGemvCell}))
          << k.name;
      // The product is summed by the template (gemv_cell.cuh), never stored:
      // no loop in the rKernel's own text and the hr slot (in1) not passed.
      EXPECT_EQ(k.cudaSource.find("for ("), std::string::npos) << k.name << ":\n" << k.cudaSource;
      // The persistent twin (issue #45 item 3) keeps its weight slice in shared memory.
      const bool resident = k.residentBytes > 0;
      EXPECT_EQ(resident, k.name.find("_resident_") != std::string::npos) << k.name;
      const size_t call = k.cudaSource.find(resident ? "rammer_gemv_cell_resident<" : "rammer_gemv_cell<");
      ASSERT_NE(call, std::string::npos) << k.cudaSource;
      EXPECT_EQ(k.cudaSource.find("in1", call), std::string::npos) << k.name << ":\n" << k.cudaSource;
    }
  }
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  std::set<std::string> ran;
  expectEveryCandidateMatches(g, inputs, *want, [&](const schedule::Plan& plan) {
    for (const auto& op : plan.ops) ran.insert(op.kernel.name);
  });
  std::set<std::string> wantRan;
  for (const char* cell : {"lstmcell", "grugates", "grucandidate", "grucell"})
    for (const char* form : {"", "resident_"})
      for (const char* j : {"j32", "j8"}) wantRan.insert(std::string("gemv_") + cell + "_" + form + j);
  // gru_cell's slice at 32 columns, 300 rows of 3 x 32 floats (112.5 KB), is over kMaxResidentBytes.
  wantRan.erase("gemv_grucell_resident_j32");
  // Each runs as a launch of its own here: a resident cell loads its slice
  // and finds it in no later rTask (the persistent-cell tests keep it).
  EXPECT_EQ(ran, wantRan);
}

TEST(CellGemvCompile, EveryCandidateCompilesForSm90WithoutSpills) {
  auto nvrtc = NvrtcCompiler::load();
  if (!nvrtc) GTEST_SKIP() << "NVRTC not found: " << nvrtc.errorText();
  const ir::Graph g = cellGraph();
  for (size_t pick = 0; pick < maxCandidates(g); ++pick) {
    SCOPED_TRACE("candidate " + std::to_string(pick));
    const schedule::Plan plan = planWithCandidate(g, pick);
    auto program = codegen::generateProgram(plan, g, persistent());
    ASSERT_TRUE(program.ok()) << program.errorText();
    auto compiled = compileProgram(**nvrtc, *program, "sm_90");
    ASSERT_TRUE(compiled.ok()) << compiled.errorText();
    EXPECT_EQ(compiled->log.find("warning"), std::string::npos) << compiled->log.substr(0, 4000);
    for (const codegen::KernelLaunch& l : program->launches) {
      const auto& use = compiled->kernels.at(l.kernel);
      EXPECT_LE(use.registers, 65536 / (l.blockThreads * std::max(1, l.veusPerSM))) << l.kernel;
      for (const std::string& f : l.functions)
        if (auto it = compiled->functions.find(f); it != compiled->functions.end())
          EXPECT_EQ(it->second.spillStoreBytes + it->second.spillLoadBytes, 0) << l.kernel << " " << f;
    }
  }
}

}  // namespace
}  // namespace rammer::runtime

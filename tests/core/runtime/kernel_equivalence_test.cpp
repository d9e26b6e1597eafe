// Issue #44 item 3: every rKernel variant the library offers for a random
// draw of each family's shapes runs as generated code on the host target
// (its CUDA text, the kernel's one form) and on the CPU emulator, and both
// match the reference executor within the output check's rule (relative L2
// at most 1e-5 per output; integer outputs exactly). The graph holds one
// operator of every family side by side (tests/support/family_graph.h);
// plan k puts every operator on its k-th candidate.
// RAMMER_EQUIVALENCE_SEEDS=N runs N draws (CI runs one). Mutation checks
// then put a wrong index into a template and show the same comparison fail
// on that operator alone.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "core/codegen/code_generator.h"
#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/kernels/cuda_library.h"
#include "core/passes/pass_manager.h"
#include "tests/core/runtime/candidate_plans.h"
#include "tests/support/family_graph.h"
#include "tests/support/host_run.h"

namespace rammer::runtime {
namespace {

namespace rt = rammer::testing;
using rt::attrs;

constexpr double kTolerance = 1e-5;  // candidate_plans.h's rule

// Each output within the rule: the worst (name, error) when one is not.
std::optional<std::pair<std::string, double>> worstMismatch(const ir::Graph& g, const std::vector<ir::Tensor>& got,
                                                            const std::vector<ir::Tensor>& want) {
  if (got.size() != want.size()) return std::pair<std::string, double>{"(output count)", INFINITY};
  std::optional<std::pair<std::string, double>> worst;
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = rt::relativeL2(got[i], want[i]);
    if (e > kTolerance && (!worst || e > worst->second)) worst = {{g.value(g.outputs()[i]).name, e}};
  }
  return worst;
}

uint32_t seedsToRun() {
  const char* env = std::getenv("RAMMER_EQUIVALENCE_SEEDS");
  return env ? static_cast<uint32_t>(std::max(1, std::atoi(env))) : 1u;
}

TEST(KernelEquivalence, EveryVariantOfRandomShapesMatchesTheReferenceAsGeneratedCodeAndOnTheEmulator) {
  for (uint32_t seed = 1; seed <= seedsToRun(); ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const ir::Graph g = rt::familyGraph(seed);
    const std::vector<ir::Tensor> inputs = rt::seededInputs(g, seed);
    auto want = exec::runReference(g, inputs);
    ASSERT_TRUE(want.ok()) << want.errorText();
    // Every candidate of every operator, and the families they belong to.
    std::set<std::string> offered, ran, families;
    for (ir::NodeId id : order(g)) {
      auto ks = kernels::kernelsFor(g, id);
      ASSERT_TRUE(ks.ok()) << ks.errorText();
      for (const kernels::RKernel& k : ks->candidates) offered.insert(g.node(id).name + ":" + k.name);
    }
    for (size_t candidate = 0; candidate < maxCandidates(g); ++candidate) {
      SCOPED_TRACE("candidate " + std::to_string(candidate));
      const schedule::Plan plan = planWithCandidate(g, candidate);
      for (const schedule::PlannedOp& op : plan.ops)
        if (!op.isView) {
          ran.insert(op.name + ":" + op.kernel.name);
          families.insert(op.kernel.family);
        }
      auto host = executeOnHost(plan, g, inputs, rt::hostTestOptions());
      ASSERT_TRUE(host.ok()) << host.errorText();
      if (auto bad = worstMismatch(g, host->outputs, *want))
        ADD_FAILURE() << "generated code on the host: " << bad->first << " off by relative L2 " << bad->second;
      auto emulated = exec::emulatePlan(plan, g, inputs);
      ASSERT_TRUE(emulated.ok()) << emulated.errorText();
      if (auto bad = worstMismatch(g, emulated->outputs, *want))
        ADD_FAILURE() << "emulator: " << bad->first << " off by relative L2 " << bad->second;
    }
    EXPECT_EQ(ran, offered) << "a candidate never ran";
    size_t cells = 0;
    for (ir::NodeId id : order(g)) cells += g.node(id).domain == ops::kRammerDomain && g.node(id).opType.find("Cell") != std::string::npos;
    EXPECT_GE(cells, 1u) << "the passes lowered no recurrent cell";
    for (const char* family : {"elementwise", "copy", "scatter", "reduce", "trilu", "maxpool", "avgpool",
                               "global_avgpool", "global_maxpool", "cumsum", "softmax", "logsoftmax", "layernorm",
                               "attention", "gemm", "gemv", "conv_igemm", "conv_depthwise"})
      EXPECT_TRUE(families.count(family)) << "no " << family << " rKernel in the draw; families: "
                                          << ::testing::PrintToString(families);
  }
}

// A wrong index put into a template, the outputs it must push out of the
// comparison's rule and those it may (other outputs must stay within it).
struct Mutation {
  const char* file;
  std::string right, wrong;
  std::set<std::string> caught, mayDiffer;
  bool lastCandidate = false;  // every operator on its last candidate (the GEMV), not its first
};
void PrintTo(const Mutation& m, std::ostream* os) { *os << m.file << ": " << m.right << " -> " << m.wrong; }

class KernelMutation : public ::testing::TestWithParam<Mutation> {};

// The comparison catches a wrong index in a template: the generated program
// of candidate 0 (or the last) with the template's text changed runs on the
// host, and only the operators on that template leave the rule.
TEST_P(KernelMutation, AWrongIndexInATemplateIsCaught) {
  const Mutation& m = GetParam();
  const ir::Graph g = rt::familyGraph(1);
  const std::vector<ir::Tensor> inputs = rt::seededInputs(g, 1);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  const schedule::Plan plan = planWithCandidate(g, m.lastCandidate ? maxCandidates(g) - 1 : 0);
  auto gp = codegen::generateProgram(plan, g, {codegen::Target::Host, true});
  ASSERT_TRUE(gp.ok()) << gp.errorText();
  size_t mutated = 0;
  for (size_t at = gp->source.find(m.right); at != std::string::npos; at = gp->source.find(m.right, at)) {
    gp->source.replace(at, m.right.size(), m.wrong);
    ++mutated;
  }
  ASSERT_GT(mutated, 0u) << m.file << " no longer has " << m.right;
  const runtime::HostExecutionOptions o = rt::hostTestOptions();
  auto build = runtime::buildHostProgram(*gp, o.build);
  ASSERT_TRUE(build.ok()) << build.errorText();
  auto got = runtime::runHostProgram(runtime::HostProgram{*gp, *build}, plan, g, inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  ASSERT_EQ(got->outputs.size(), want->size());
  for (size_t i = 0; i < want->size(); ++i) {
    const std::string& name = g.value(g.outputs()[i]).name;
    const double e = rt::relativeL2(got->outputs[i], (*want)[i]);
    if (m.caught.count(name))
      EXPECT_GT(e, 1e-3) << name << " passed the check with a wrong index in " << m.file;
    else if (!m.mayDiffer.count(name))
      EXPECT_LE(e, kTolerance) << name;
  }
}

// global_pool.cuh reads element j / 2 of the plane instead of j: the
// average's output leaves the rule (the maximum may lie in the half still
// read). window_pool.cuh reads the window's first column for every column:
// both window pools leave it. reduce.cuh folds the first reduced element
// over and over: every reduction does. The GEMM family: every row of a
// GEMM's output stored over row 0 (gemm_store.cuh; the skinny MatMul is a
// tile GEMM at candidate 0), every tile's A read from row 0 (gemm_rtask.cuh;
// the skinny MatMul has one tile row), every convolution row stored over
// its group's first (gemm_store.cuh), the depthwise loop's channel planes
// too short (conv_geometry.cuh), and the GEMV's rows stored over row 0 (its
// last candidate). copy.cuh stores every coordinate at stride 1: the
// multi-dim copies leave the rule.
INSTANTIATE_TEST_SUITE_P(
    Templates, KernelMutation,
    ::testing::Values(Mutation{"global_pool.cuh", "P::Op::apply(acc, xp[j])", "P::Op::apply(acc, xp[j / 2])", {"gap"}, {"gmp"}},
                      Mutation{"window_pool.cuh", "(i0 * A1::in + i1) * A2::in + i2]", "(i0 * A1::in + i1) * A2::in + 0]",
                               {"maxpool", "avgpool"}, {}},
                      Mutation{"reduce.cuh", "in0[base + Red::template offset<I>(j)]", "in0[base]",
                               {"rsum", "rmean", "rmax"}, {}},
                      Mutation{"gemm_store.cuh", "return offY + m * (I)N + n;", "return offY + n;",
                               {"matmul", "gemm.relu", "gemv"}, {}},
                      Mutation{"gemm_rtask.cuh", "a + offA + at.m0 * RammerLiteral<OA::SMN>::value", "a + offA",
                               {"matmul", "gemm.relu"}, {}},
                      Mutation{"gemm_store.cuh", "bb * RammerLiteral<MG>::value + m)", "bb * RammerLiteral<MG>::value)",
                               {"conv.relu"}, {}},
                      Mutation{"conv_geometry.cuh", "IS = ID_ * IH_ * IW_", "IS = ID_ * IH_", {"depthwise"}, {}},
                      Mutation{"gemv_rtask.cuh", "(offY + m * (I)N + n, bb", "(offY + n, bb", {"gemv"}, {}, true},
                      Mutation{"copy.cuh", "dst + c[DIMS::index] * RammerLiteral<DIMS::outStride>::value",
                               "dst + c[DIMS::index]", {"transpose", "concat"}, {"slice", "pad", "gather"}}),
    [](const ::testing::TestParamInfo<Mutation>& info) {
      // The template and the first output it must push out.
      std::string name = info.param.file;
      name = name.substr(0, name.find('.')) + "_" + *info.param.caught.begin();
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

}  // namespace
}  // namespace rammer::runtime

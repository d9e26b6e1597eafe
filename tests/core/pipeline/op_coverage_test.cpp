// What the reference runs, the generated code runs (issue #30 item 3):
// every op of the operator registry reaches an rKernel (a family of the
// kernel library, a view, the element-wise fusion, or a lowering pass into
// those), or is on one of two short lists with its reason: ops that only
// ever exist as constants, and ops on strings. Since integer and bool
// tensors are held at run time (core/ir/words.h: comparisons, logical ops,
// Where on a computed mask, Cast, ArgMax/ArgMin) no op is left without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "core/kernels/kernel_library.h"
#include "core/ops/op_registry.h"
#include "core/passes/elementwise_fusion.h"

namespace rammer {
namespace {

// Rewritten by a pass into ops with rKernels (the pass named).
const std::map<std::string, std::string> kLowered = {
    {"LSTM", "RnnLowering: per-step cells (com.rammer.LstmCell)"},
    {"GRU", "RnnLowering: per-step cells (com.rammer.GruCell)"},
    {"RNN", "RnnLowering: per-step cells"},
    {"InstanceNormalization", "InstanceNormLowering: LayerNormalization and a per-channel affine"},
    {"ConvTranspose", "ConvTransposeLowering: a Conv of the zero-spread input (constant weights, explicit pads)"},
    {"ReduceLogSumExp", "LogSumExpLowering: ReduceMax, exp, ReduceSum, log (known axes)"},
    {"LpPool", "LpPoolLowering: AveragePool of |x|^p (no ceil_mode, no dilations)"},
    {"GlobalLpPool", "LpPoolLowering: GlobalAveragePool of |x|^p"},
    {"LRN", "LrnLowering: AveragePool over the channels of x^2, then element-wise"},
    {"Hardmax", "HardmaxLowering: ReduceMax, sign, an exclusive CumSum of the maxima"},
    {"Einsum", "EinsumLowering: Transpose, Reshape views and one MatMul, or a ReduceSum (no ellipsis, no diagonal)"},
};

// Only ever constants: folded at import or by ConstantFolding, so no node
// of them reaches the schedule.
const std::map<std::string, std::string> kConstantOnly = {
    {"Constant", "a value in the graph: folded at import"},
    {"ConstantOfShape", "its shape input is known once shapes are: folded"},
    {"Shape", "a tensor's shape, known statically: folded"},
    {"Size", "a tensor's element count, known statically: folded"},
    {"Range", "its length is its inputs' values: a static plan has it only when they are constants, then folded"},
};

// On strings: the generated code computes numbers.
const std::map<std::string, std::string> kStrings = {
    {"StringNormalizer", "string tensors in and out"},
};

// "com.rammer.X" (the registry's) and "com.rammer::X" (the library's) as one.
std::string normalized(std::string type) {
  if (const auto p = type.find("::"); p != std::string::npos) type.replace(p, 2, ".");
  return type;
}

TEST(OpCoverage, EveryOpOfTheReferenceHasAnRKernelOrAReason) {
  std::set<std::string> covered;
  for (const std::string& t : kernels::supportedOpTypes()) covered.insert(normalized(t));
  for (const std::string& t : passes::fusedElementwiseOpTypes()) covered.insert(t);
  for (const auto& [t, why] : kLowered) covered.insert(t);

  std::set<std::string> registry;
  for (const std::string& t : ops::OpRegistry::builtin().types()) registry.insert(normalized(t));
  std::vector<std::string> missing, stale;
  for (const std::string& t : registry) {
    const bool reasoned = kConstantOnly.count(t) || kStrings.count(t);
    if (!covered.count(t) && !reasoned) missing.push_back(t);
    if (covered.count(t) && reasoned) stale.push_back(t);
  }
  EXPECT_TRUE(missing.empty()) << "ops the reference runs with no rKernel and no reason: "
                               << ::testing::PrintToString(missing);
  EXPECT_TRUE(stale.empty()) << "ops with an rKernel still listed with a reason for lacking one: " << ::testing::PrintToString(stale);
  for (const auto* list : {&kConstantOnly, &kStrings, &kLowered})
    for (const auto& [t, why] : *list) EXPECT_TRUE(registry.count(t)) << t << " is not an op of the registry";
  // The lists stay short: most of the registry runs as generated code.
  EXPECT_LE(kConstantOnly.size() + kStrings.size(), 6u);
}

}  // namespace
}  // namespace rammer

// Integer and bool tensors at run time (issue #30 item 2): comparisons into
// masks, logical ops, Where on a computed mask, Cast between the word types,
// integer arithmetic, Gather by run-time indices, ArgMax/ArgMin, and copy
// rKernels moving integer words, each checked against the reference
// executor element by element (integers and bools exactly).
#include <cmath>
#include <limits>

#include "core/ir/words.h"
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

using ir::DType;

// `op` over inputs of the given types and shapes (broadcasting), checked
// on every candidate; `given` replaces the random inputs where non-empty.
void checkOp(const std::string& op, const std::vector<std::pair<DType, ir::Shape>>& ins, const ir::Attributes& a = {},
             const std::vector<ir::Tensor>& given = {}) {
  SCOPED_TRACE(op);
  GraphBuilder b;
  std::vector<ir::ValueId> vs;
  for (size_t k = 0; k < ins.size(); ++k) vs.push_back(b.input("x" + std::to_string(k), ins[k].second, ins[k].first));
  b.output(b.op(op, "n", vs, a));
  ASSERT_TRUE(b.infer().empty());
  size_t candidates = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 0, &candidates, 0, given);
  EXPECT_GE(candidates, 1u);
}

}  // namespace

TEST(WordElementwiseKernels, ComparisonsMakeBoolMasksFromFloatAndIntegerOperands) {
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}) {
    for (DType t : {DType::Int64, DType::Int32}) {
      checkOp(op, {{t, {3, 1, 8}}, {t, {4, 8}}});  // both sides broadcast
      checkOp(op, {{t, {5, 7}}, {t, {}}});         // against a scalar
    }
    // Floats with equal pairs, NaN and infinities: the order is the float's.
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    checkOp(op, {{DType::Float32, {6}}, {DType::Float32, {6}}}, {},
            {ir::Tensor::fromVector<float>({6}, {1.5f, nan, -inf, 0.0f, 2.0f, -0.0f}),
             ir::Tensor::fromVector<float>({6}, {1.5f, nan, 3.0f, -0.0f, inf, 0.0f})});
  }
}

TEST(WordElementwiseKernels, LogicalOpsAndNotOnBools) {
  for (const char* op : {"And", "Or", "Xor"}) checkOp(op, {{DType::Bool, {2, 3, 16}}, {DType::Bool, {3, 1}}});
  checkOp("Not", {{DType::Bool, {5, 9}}});
}

TEST(WordElementwiseKernels, WhereSelectsTheWordsOfAnyTypeByAComputedMask) {
  for (DType t : {DType::Float32, DType::Int64, DType::Bool, DType::Int32})
    checkOp("Where", {{DType::Bool, {1, 4, 4}}, {t, {2, 4, 4}}, {t, {4}}});
}

// A causal mask applied to attention scores, with the mask a constant (the
// form a GPT export folds to) read as words by the same rKernel.
TEST(WordElementwiseKernels, WhereReadsAConstantMaskAsWords) {
  GraphBuilder b;
  std::vector<bool> tri;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) tri.push_back(j <= i);
  const ir::ValueId mask = b.constant("mask", ir::Tensor::fromVector<bool>({6, 6}, tri));
  const ir::ValueId fill = b.constant("fill", ir::Tensor::scalar<float>(-1e4f));
  b.output(b.op("Where", "w", {mask, b.input("scores", {2, 6, 6}), fill}));
  ASSERT_TRUE(b.infer().empty());
  checkCandidates(b.graph(), lastNode(b.graph()), 0, nullptr, 0);
  auto ks = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(ks.ok()) << ks.errorText();
  EXPECT_TRUE(ks->candidates[0].readsConstantAsWords(0));
}

TEST(WordElementwiseKernels, CastBetweenFloatBoolAndEveryIntegerType) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // Truncation both ways, saturation, NaN, infinities, and negatives into
  // unsigned types (which wrap, as the reference's Cast does).
  const ir::Tensor floats = ir::Tensor::fromVector<float>(
      {12}, {2.7f, -2.7f, 0.0f, -0.4f, 300.5f, -300.5f, 70000.0f, -70000.0f, nan, inf, -inf, 3e9f});
  const DType all[] = {DType::Float32, DType::Bool,   DType::Int8,  DType::UInt8,
                       DType::Int16,   DType::UInt16, DType::Int32, DType::Int64};
  for (DType to : all) {
    SCOPED_TRACE(std::string(ir::dtypeName(to)));
    const ir::Attributes a = attrs({{"to", static_cast<int64_t>(to)}});
    if (to != DType::Int64) checkOp("Cast", {{DType::Float32, {12}}}, a, {floats});
    // Integers into narrower types wrap.
    checkOp("Cast", {{DType::Int64, {6}}}, a, {ir::Tensor::fromVector<int64_t>({6}, {-1, 255, 256, 70000, -129, 5})});
    checkOp("Cast", {{DType::Bool, {4, 3}}}, a);
  }
  // int64 is held as int32 (ir/words.h): within int32 it is the reference's
  // Cast; beyond, it saturates at int32, where the reference goes on to int64.
  const ir::Attributes toInt64 = attrs({{"to", static_cast<int64_t>(DType::Int64)}});
  checkOp("Cast", {{DType::Float32, {8}}}, toInt64,
          {ir::Tensor::fromVector<float>({8}, {2.7f, -2.7f, 0.0f, -0.4f, 300.5f, -3e4f, 2e9f, nan})});
  // Beyond int32 the rKernel saturates: tests/core/runtime/word_kernels_host_test.cpp.
}

TEST(WordElementwiseKernels, IntegerArithmeticBroadcastsAndWrapsToItsType) {
  for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"})
    for (DType t : {DType::Int64, DType::Int32}) checkOp(op, {{t, {4, 1, 5}}, {t, {3, 5}}});
  checkOp("Sum", {{DType::Int64, {4, 5}}, {DType::Int64, {5}}, {DType::Int64, {4, 1}}});
  checkOp("Neg", {{DType::Int32, {7}}});
  checkOp("Abs", {{DType::Int64, {7}}});
  // Division truncates; Mod follows the divisor's sign unless fmod=1. No
  // divisor is 0 (the reference stops there; the rKernel gives 0).
  const ir::Tensor a = ir::Tensor::fromVector<int64_t>({8}, {7, -7, 7, -7, 0, 9, -9, 100});
  const ir::Tensor d = ir::Tensor::fromVector<int64_t>({8}, {2, 2, -2, -2, 3, -1, 4, 7});
  checkOp("Div", {{DType::Int64, {8}}, {DType::Int64, {8}}}, {}, {a, d});
  checkOp("Mod", {{DType::Int64, {8}}, {DType::Int64, {8}}}, {}, {a, d});
  checkOp("Mod", {{DType::Int64, {8}}, {DType::Int64, {8}}}, attrs({{"fmod", int64_t{1}}}), {a, d});
}

TEST(WordElementwiseKernels, FloatArithmeticIsLeftToFusedElementwise) {
  GraphBuilder b;
  b.output(b.op("Add", "add", {b.input("x", {4}), b.input("y", {4})}));
  ASSERT_TRUE(b.infer().empty());
  auto ks = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_FALSE(ks.ok());
  EXPECT_NE(ks.errorText().find("FusedElementwise"), std::string::npos) << ks.errorText();
}

TEST(WordElementwiseKernels, TypesWithoutWordsAreRefusedByName) {
  GraphBuilder b;
  b.output(b.op("Less", "less", {b.input("x", {4}, DType::Float64), b.input("y", {4}, DType::Float64)}));
  ASSERT_TRUE(b.infer().empty());
  auto ks = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_FALSE(ks.ok());
  EXPECT_NE(ks.errorText().find("float64"), std::string::npos) << ks.errorText();
  EXPECT_NE(ks.errorText().find("Less"), std::string::npos) << ks.errorText();
}

// Embeddings by token ids: the indices a graph input, negative ones
// counting from the end, on axis 0 and on an inner axis.
TEST(WordElementwiseKernels, GatherReadsRunTimeIndices) {
  const ir::Tensor ids = ir::Tensor::fromVector<int64_t>({2, 3}, {0, 9, -1, 4, -10, 3});
  for (int64_t axis : {0, 1}) {
    GraphBuilder b;
    const ir::ValueId table = b.constant("table", rammer::testing::randomTensor({10, 10, 3}, 5));
    b.output(b.op("Gather", "g", {table, b.input("ids", {2, 3}, DType::Int64)}, attrs({{"axis", axis}})));
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 0, nullptr, 0, {{}, ids});
  }
  // Integer data too: words move whatever they hold.
  checkOp("Gather", {{DType::Int64, {6, 2}}, {DType::Int32, {4}}}, {},
          {{}, ir::Tensor::fromVector<int32_t>({4}, {5, 0, -6, 2})});
}

TEST(WordElementwiseKernels, GatherElementsReadsRunTimeIndices) {
  for (int64_t axis : {0, 1, -1}) {
    ir::Tensor idx(DType::Int64, {3, 4, 2});
    for (int64_t i = 0; i < idx.numel(); ++i) idx.data<int64_t>()[i] = (i * 7) % 5 - 2;  // in [-2, 2]
    checkOp("GatherElements", {{DType::Float32, {5, 4, 3}}, {DType::Int64, {3, 4, 2}}}, attrs({{"axis", axis}}),
            {{}, idx});
  }
}

// An index outside the axis: tests/core/runtime/word_kernels_host_test.cpp.

TEST(WordElementwiseKernels, ArgMaxAndArgMinGiveIntegerPositions) {
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int64_t last : {0, 1}) {
      checkOp(op, {{DType::Float32, {3, 7, 4}}}, attrs({{"axis", int64_t{1}}, {"select_last_index", last}}));
      checkOp(op, {{DType::Int64, {5, 6}}},
              attrs({{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}, {"select_last_index", last}}));
    }
}

TEST(WordElementwiseKernels, CopyRKernelsMoveIntegerWords) {
  checkOp("Transpose", {{DType::Int64, {3, 4, 5}}}, attrs({{"perm", std::vector<int64_t>{2, 0, 1}}}));
  checkOp("Concat", {{DType::Int64, {2, 3}}, {DType::Int64, {4, 3}}}, attrs({{"axis", int64_t{0}}}));
  {
    // Expand and Slice of token ids (their shapes and bounds constants, as
    // after folding).
    GraphBuilder b;
    const ir::ValueId ids = b.input("ids", {1, 6}, DType::Int64);
    b.output(b.op("Expand", "e", {ids, b.constant("shape", ir::Tensor::fromVector<int64_t>({2}, {3, 6}))}));
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 0, nullptr, 0);
    const ir::Tensor big =
        ir::Tensor::fromVector<int64_t>({1}, {std::numeric_limits<int64_t>::max()});  // ends past int32: baked,
                                                                                      // not a word
    b.output(b.op("Slice", "s",
                  {ids, b.constant("starts", ir::Tensor::fromVector<int64_t>({1}, {1})), b.constant("ends", big),
                   b.constant("axes", ir::Tensor::fromVector<int64_t>({1}, {1}))}));
    ASSERT_TRUE(b.infer().empty());
    checkCandidates(b.graph(), lastNode(b.graph()), 0, nullptr, 0);
  }
  // Pad's constant value is an integer word for integer data.
  GraphBuilder b;
  const ir::ValueId pads = b.constant("pads", ir::Tensor::fromVector<int64_t>({4}, {1, 0, 0, 2}));
  b.output(
      b.op("Pad", "pad", {b.input("x", {3, 4}, DType::Int64), pads, b.constant("v", ir::Tensor::scalar<int64_t>(-7))}));
  ASSERT_TRUE(b.infer().empty());
  checkCandidates(b.graph(), lastNode(b.graph()), 0, nullptr, 0);
}

// The fused element-wise expression language and the FusedElementwise op.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "core/ops/math/fused_expr.h"
#include "core/ops/op_registry.h"

using namespace rammer;
using ops::FusedExpr;

TEST(FusedExpr, ParsePrintRoundTrip) {
  const std::string text = "(relu (add (mul x0 x1) 0.5))";
  FusedExpr e = FusedExpr::parse(text);
  EXPECT_EQ(e.toString(), text);
  EXPECT_EQ(e.numInputs(), 2);
  EXPECT_EQ(e.numOperations(), 3);
  EXPECT_EQ(FusedExpr::parse(e.toString()).toString(), text);
}

TEST(FusedExpr, EvaluatesEveryFunctionLikeItsDefinition) {
  const float x = -0.75f, y = 1.5f;
  const float xs[] = {x, y};
  struct Case { const char* expr; float want; };
  const Case cases[] = {
      {"(add x0 x1)", x + y}, {"(sub x0 x1)", x - y}, {"(mul x0 x1)", x * y}, {"(div x0 x1)", x / y},
      {"(pow x1 2)", y * y}, {"(max x0 x1)", y}, {"(min x0 x1)", x}, {"(neg x0)", -x},
      {"(abs x0)", 0.75f}, {"(sqrt x1)", std::sqrt(y)}, {"(exp x0)", std::exp(x)}, {"(log x1)", std::log(y)},
      {"(reciprocal x1)", 1 / y}, {"(floor x0)", -1.0f}, {"(ceil x0)", 0.0f}, {"(erf x0)", std::erf(x)},
      {"(relu x0)", 0.0f}, {"(relu x1)", y}, {"(sigmoid x0)", 1 / (1 + std::exp(-x))}, {"(tanh x0)", std::tanh(x)},
      {"(softplus x0)", std::log1p(std::exp(x))}, {"(softsign x0)", x / (1 + 0.75f)},
      {"(leaky_relu x0 0.1)", 0.1f * x}, {"(elu x0 2)", 2 * (std::exp(x) - 1)},
      {"(hard_sigmoid x0 0.2 0.5)", 0.2f * x + 0.5f}, {"(clip x1 -1 1)", 1.0f},
      {"(hard_swish x1)", y * (y / 6 + 0.5f)}, {"(sign x0)", -1.0f},
      {"(selu x0 1.67326 1.0507)", 1.0507f * (1.67326f * std::exp(x) - 1.67326f)},
      {"(tan x0)", std::tan(x)}, {"(asin x0)", std::asin(x)}, {"(acos x0)", std::acos(x)},
      {"(atan x1)", std::atan(y)}, {"(sinh x0)", std::sinh(x)}, {"(cosh x0)", std::cosh(x)},
      {"(asinh x1)", std::asinh(y)}, {"(acosh x1)", std::acosh(y)}, {"(atanh x0)", std::atanh(x)},
      {"(round x1)", 2.0f}, {"(round 2.5)", 2.0f}, {"(round x0)", -1.0f},
      {"(celu x0 2)", 2 * std::expm1(x / 2)}, {"(celu x1 2)", y},
      {"(thresholded_relu x1 1)", y}, {"(thresholded_relu x0 -1)", x}, {"(thresholded_relu x1 2)", 0.0f},
      {"(where 1 x0 x1)", x}, {"(where 0 x0 x1)", y},
      {"(fmod x1 0.4)", std::fmod(y, 0.4f)}, {"(fmod x0 0.5)", std::fmod(x, 0.5f)},
      {"(shrink x0 0.5 0.25)", x + 0.25f}, {"(shrink x1 0.5 0.25)", y - 0.25f}, {"(shrink x0 1 0)", 0.0f},
      {"(equal x0 x0)", 1.0f}, {"(equal x0 x1)", 0.0f}, {"(less x0 x1)", 1.0f}, {"(less x1 x0)", 0.0f},
      {"(less_equal x0 x0)", 1.0f}, {"(greater x1 x0)", 1.0f}, {"(greater x0 x0)", 0.0f},
      {"(greater_equal x0 x0)", 1.0f}, {"(greater_equal x0 x1)", 0.0f}, {"(logical_not 0)", 1.0f},
      {"(logical_not x0)", 0.0f}, {"(logical_and x0 x1)", 1.0f}, {"(logical_and x0 0)", 0.0f},
      {"(logical_or 0 x1)", 1.0f}, {"(logical_or 0 0)", 0.0f}, {"(logical_xor x0 x1)", 0.0f},
      {"(logical_xor x0 0)", 1.0f},
  };
  for (const Case& c : cases) {
    FusedExpr e = FusedExpr::parse(c.expr);
    EXPECT_NEAR(e.evalScalar(xs), c.want, 1e-6) << c.expr;
    float out;
    const float* in[] = {&xs[0], &xs[1]};
    const int64_t stride[] = {0, 0};
    e.evalRow(in, stride, &out, 1);
    EXPECT_NEAR(out, c.want, 1e-6) << c.expr << " (row)";
  }
  EXPECT_EQ(FusedExpr::functionNames().size(), 58u) << "a new function needs a case above or below";
}

// The functions that read or write int32 words (ir/words.h) see bits, not
// float values: 7 as a word is a denormal that flushing would zero.
TEST(FusedExpr, WordFunctionsReadAndWriteBits) {
  const float words[] = {std::bit_cast<float>(int32_t{7}), std::bit_cast<float>(int32_t{0}), 2.5f, -4.0f};
  auto eval = [&](const char* text) { return FusedExpr::parse(text).evalScalar(words); };
  EXPECT_EQ(eval("(int_to_float x0)"), 7.0f);
  EXPECT_EQ(eval("(where_word x0 x2 x3)"), 2.5f);
  EXPECT_EQ(eval("(where_word x1 x2 x3)"), -4.0f);
  EXPECT_EQ(std::bit_cast<int32_t>(eval("(bool_to_word x2)")), 1);
  EXPECT_EQ(std::bit_cast<int32_t>(eval("(bool_to_word (less x2 x3))")), 0);
  // Once a producer's value replaces input 0, its word reads become value reads.
  const FusedExpr e = FusedExpr::parse("(add (int_to_float x0) (where_word x0 x1 x2))").readingValueOf(0);
  EXPECT_EQ(FusedExpr::parse(e.toString()).toString(), "(add x0 (where x0 x1 x2))");
  EXPECT_EQ(FusedExpr::parse("(int_to_float x1)").readingValueOf(0).toString(), "(int_to_float x1)");
}

TEST(FusedExpr, ParseErrorsSayWhereAndWhat) {
  auto msg = [](const std::string& text) {
    try {
      FusedExpr::parse(text);
    } catch (const ops::OpError& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  EXPECT_NE(msg("(frobnicate x0)").find("unknown function 'frobnicate'"), std::string::npos);
  EXPECT_NE(msg("(add x0)").find("takes 2 arguments, got 1"), std::string::npos);
  EXPECT_NE(msg("(relu x0").find("missing ')'"), std::string::npos);
  EXPECT_NE(msg("(relu y7)").find("'y7' is neither an input"), std::string::npos);
  EXPECT_NE(msg("x0 x1").find("unexpected text"), std::string::npos);
}

TEST(FusedExpr, SubstituteComposesExpressions) {
  // relu(x0) with x0 := add(x0, x1) gives relu(add(x0, x1)).
  FusedExpr outer = FusedExpr::parse("(relu x0)");
  FusedExpr inner = FusedExpr::parse("(add x0 x1)");
  EXPECT_EQ(outer.substitute({inner}).toString(), "(relu (add x0 x1))");
  EXPECT_EQ(inner.remapInputs({2, 0}).toString(), "(add x2 x0)");
}

TEST(FusedExpr, CudaTextUsesOneTemporaryPerNode) {
  FusedExpr e = FusedExpr::parse("(softsign (add x0 1))");
  const std::string code = e.toCuda({"a[i]"}, "out[i]", "");
  EXPECT_EQ(code,
            "const float e0 = a[i];\n"
            "const float e1 = 1.0f;\n"
            "const float e2 = (e0 + e1);\n"
            "const float e3 = (e2 / (1.0f + fabsf(e2)));\n"
            "out[i] = e3;\n");
}

TEST(FusedElementwiseOp, BroadcastsLikeNumpy) {
  const ops::OpDef* def = ops::OpRegistry::builtin().find(ops::kRammerDomain, "FusedElementwise");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(ops::OpRegistry::builtin().find("", "FusedElementwise"), nullptr);
  ir::Node node;
  node.opType = "FusedElementwise";
  node.attrs.set("expr", std::string("(relu (add x0 x1))"));
  // [2,3] + [3] (a bias row).
  ir::Tensor a = ir::Tensor::fromVector<float>({2, 3}, {1, -2, 3, -4, 5, -6});
  ir::Tensor b = ir::Tensor::fromVector<float>({3}, {0.5f, 1.0f, 1.5f});
  ops::OpContext ctx(node, 17, {a.type(), b.type()}, {&a, &b});
  auto types = def->infer(ctx);
  EXPECT_EQ(types[0].shape, (ir::Shape{2, 3}));
  auto out = def->compute(ctx);
  const std::vector<float> want = {1.5f, 0, 4.5f, 0, 6, 0};
  auto got = out[0].values<float>();
  EXPECT_EQ(std::vector<float>(got.begin(), got.end()), want);
}

TEST(FusedElementwiseOp, RejectsMissingInputsAndWrongTypes) {
  const ops::OpDef* def = ops::OpRegistry::builtin().find(ops::kRammerDomain, "FusedElementwise");
  ir::Node node;
  node.opType = "FusedElementwise";
  node.attrs.set("expr", std::string("(add x0 x2)"));
  ir::Tensor a = ir::Tensor::fromVector<float>({2}, {1, 2});
  ops::OpContext ctx(node, 17, {a.type(), a.type()}, {&a, &a});
  EXPECT_THROW(def->infer(ctx), ops::OpError);
  // float64 has no word; bool and the integers do (read by int_to_float, where_word).
  ir::Tensor d = ir::Tensor::fromVector<double>({2}, {1, 2});
  node.attrs.set("expr", std::string("(neg x0)"));
  ops::OpContext dctx(node, 17, {d.type()}, {&d});
  EXPECT_THROW(def->infer(dctx), ops::OpError);
  ir::Tensor i = ir::Tensor::fromVector<int64_t>({2}, {1, -2});
  node.attrs.set("expr", std::string("(neg (int_to_float x0))"));
  ops::OpContext ictx(node, 17, {i.type()}, {&i});
  EXPECT_EQ(def->infer(ictx)[0].dtype, ir::DType::Float32);
  EXPECT_EQ(def->compute(ictx)[0].toDoubles(), (std::vector<double>{-1, 2}));
  // "to" = bool: the expression's words as a bool tensor.
  node.attrs.set("expr", std::string("(bool_to_word (less (int_to_float x0) 0))"));
  node.attrs.set("to", static_cast<int64_t>(ir::DType::Bool));
  ops::OpContext bctx(node, 17, {i.type()}, {&i});
  EXPECT_EQ(def->infer(bctx)[0].dtype, ir::DType::Bool);
  EXPECT_EQ(def->compute(bctx)[0].toInt64s(), (std::vector<int64_t>{0, 1}));
  node.attrs.set("to", static_cast<int64_t>(ir::DType::Int64));
  ops::OpContext lctx(node, 17, {i.type()}, {&i});
  EXPECT_THROW(def->infer(lctx), ops::OpError);
}

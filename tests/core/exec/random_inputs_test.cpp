#include "core/exec/random_inputs.h"

#include <gtest/gtest.h>

#include <cstring>

namespace rammer::exec {
namespace {

ir::Graph graphWithInputs(std::vector<ir::TensorType> types) {
  ir::Graph g;
  for (size_t i = 0; i < types.size(); ++i) {
    ir::ValueId v = g.addValue("in" + std::to_string(i), types[i]);
    g.value(v).isGraphInput = true;
    g.addInput(v);
  }
  return g;
}

bool sameBytes(const ir::Tensor& a, const ir::Tensor& b) {
  return a.type() == b.type() && a.byteSize() == b.byteSize() && std::memcmp(a.raw(), b.raw(), a.byteSize()) == 0;
}

TEST(RandomInputs, SameSeedSameTensorsOtherSeedOthers) {
  ir::Graph g = graphWithInputs({{ir::DType::Float32, {3, 5}, true}, {ir::DType::Int64, {7}, true}});
  auto a = makeRandomInputs(g, 1);
  auto b = makeRandomInputs(g, 1);
  auto c = makeRandomInputs(g, 2);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_TRUE(sameBytes((*a)[0], (*b)[0]));
  EXPECT_TRUE(sameBytes((*a)[1], (*b)[1]));
  EXPECT_FALSE(sameBytes((*a)[0], (*c)[0]));
  // The two inputs come from one stream: not the same values twice.
  EXPECT_NE((*a)[0].values<float>()[0], (*a)[0].values<float>()[1]);
}

TEST(RandomInputs, RangesFollowTheDType) {
  ir::Graph g = graphWithInputs({{ir::DType::Float32, {4000}, true},
                                 {ir::DType::Int32, {1000}, true},
                                 {ir::DType::Bool, {1000}, true}});
  auto in = makeRandomInputs(g, 7);
  ASSERT_TRUE(in.ok()) << in.errorText();
  float lo = 1, hi = -1;
  double sum = 0;
  for (float v : (*in)[0].values<float>()) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  EXPECT_GE(lo, -1.0f);
  EXPECT_LE(hi, 1.0f);
  EXPECT_LT(lo, -0.99f);  // 4000 uniform draws reach both ends
  EXPECT_GT(hi, 0.99f);
  EXPECT_NEAR(sum / 4000, 0.0, 0.05);
  std::vector<int> seen(10, 0);
  for (int32_t v : (*in)[1].values<int32_t>()) {
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 9);
    ++seen[static_cast<size_t>(v)];
  }
  for (int n : seen) EXPECT_GT(n, 0);
  int ones = 0;
  for (bool v : (*in)[2].values<bool>()) ones += v ? 1 : 0;
  EXPECT_GT(ones, 400);
  EXPECT_LT(ones, 600);
}

TEST(RandomInputs, UnknownDimsNameTheInput) {
  ir::Graph g = graphWithInputs({{ir::DType::Float32, {ir::kUnknownDim, 3}, true}});
  auto in = makeRandomInputs(g, 1);
  ASSERT_FALSE(in.ok());
  EXPECT_NE(in.errorText().find("'in0'"), std::string::npos) << in.errorText();
  EXPECT_NE(in.errorText().find("[?, 3]"), std::string::npos) << in.errorText();
  EXPECT_EQ(in.errors().front().node, "in0");  // the studio's Diagnostics jump to it
}

TEST(RandomInputs, AbsurdShapesFailInsteadOfAllocating) {
  ir::Graph g = graphWithInputs({{ir::DType::Float32, {1 << 20, 1 << 20}, true}});
  auto in = makeRandomInputs(g, 1);
  ASSERT_FALSE(in.ok());
  // The memory budget refuses it before any tensor is made, naming it.
  EXPECT_NE(in.errorText().find("the random inputs would need about 4.40 TB"), std::string::npos) << in.errorText();
  EXPECT_NE(in.errorText().find("'in0' float32[1048576, 1048576]"), std::string::npos) << in.errorText();
}

}  // namespace
}  // namespace rammer::exec

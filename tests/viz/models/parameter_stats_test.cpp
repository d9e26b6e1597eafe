#include "viz/models/parameter_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace rammer::viz {
namespace {

TEST(ParameterStats, MomentsOverFiniteValuesAndCounts) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto t = ir::Tensor::fromVector<float>({5}, {1, -2, 0, 3, nan});
  const auto s = tensorStats(t);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->count, 5);
  EXPECT_EQ(s->finite, 4);
  EXPECT_EQ(s->zeros, 1);
  EXPECT_EQ(s->nonFinite, 1);
  EXPECT_DOUBLE_EQ(s->min, -2);
  EXPECT_DOUBLE_EQ(s->max, 3);
  EXPECT_DOUBLE_EQ(s->mean, 0.5);
  // deviations 0.5, -2.5, -0.5, 2.5: variance 13/4
  EXPECT_NEAR(s->stddev, std::sqrt(13.0 / 4.0), 1e-12);
}

TEST(ParameterStats, LargeOffsetValuesKeepTheirVariance) {
  // 1e8 + {0, 1, 2, 3}: sum of squares would lose the spread in doubles.
  const auto t = ir::Tensor::fromVector<double>({4}, {1e8, 1e8 + 1, 1e8 + 2, 1e8 + 3});
  const auto s = tensorStats(t);
  ASSERT_TRUE(s);
  EXPECT_NEAR(s->stddev, std::sqrt(1.25), 1e-9);
}

TEST(ParameterStats, IntegerTensorsAndEdgeCases) {
  const auto s = tensorStats(ir::Tensor::fromVector<int64_t>({3}, {4, 0, -4}));
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->mean, 0);
  EXPECT_EQ(s->zeros, 1);
  EXPECT_FALSE(tensorStats(ir::Tensor()));
  ir::Tensor str(ir::DType::String, {2});
  EXPECT_FALSE(tensorStats(str));
  const auto allNan = tensorStats(ir::Tensor::fromVector<float>({1}, {std::numeric_limits<float>::infinity()}));
  ASSERT_TRUE(allNan);
  EXPECT_EQ(allNan->finite, 0);
  EXPECT_EQ(allNan->min, 0);
}

}  // namespace
}  // namespace rammer::viz

#include "viz/models/parameter_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rammer::viz {

namespace {

// Welford's update keeps the variance accurate for large tensors whose
// values sit far from zero, where sum-of-squares cancels badly.
class Accumulator {
 public:
  void add(double x) {
    ++stats_.count;
    if (!std::isfinite(x)) {
      ++stats_.nonFinite;
      return;
    }
    if (x == 0) ++stats_.zeros;
    ++stats_.finite;
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(stats_.finite);
    m2_ += delta * (x - mean_);
  }
  TensorStats result() const {
    TensorStats s = stats_;
    if (s.finite > 0) {
      s.min = min_;
      s.max = max_;
      s.mean = mean_;
      s.stddev = std::sqrt(m2_ / static_cast<double>(s.finite));
    }
    return s;
  }

 private:
  TensorStats stats_;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace

std::optional<TensorStats> tensorStats(const ir::Tensor& tensor) {
  if (tensor.empty() || tensor.dtype() == ir::DType::String) return std::nullopt;
  Accumulator acc;
  if (tensor.dtype() == ir::DType::Float32) {
    for (float v : tensor.values<float>()) acc.add(static_cast<double>(v));
  } else {
    for (int64_t i = 0; i < tensor.numel(); ++i) acc.add(tensor.getDouble(i));
  }
  return acc.result();
}

}  // namespace rammer::viz

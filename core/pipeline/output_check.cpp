#include "core/pipeline/output_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace rammer::pipeline {

namespace {

OutputComparison compareOne(const std::string& name, const ir::Tensor& got, const ir::Tensor& want) {
  OutputComparison c;
  c.name = name;
  c.elements = want.numel();
  c.sameShape = got.numel() == want.numel() && got.dtype() == want.dtype();
  if (!c.sameShape || want.dtype() == ir::DType::String || want.dtype() == ir::DType::Undefined) return c;
  c.compared = true;
  if (!ir::isFloating(want.dtype())) {  // integers and bools: exactly
    for (int64_t i = 0; i < want.numel(); ++i) {
      const int64_t w = want.getInt64(i), g = got.getInt64(i);
      c.mismatched += g != w;
      c.maxAbsDiff = std::max(c.maxAbsDiff, std::fabs(static_cast<double>(g) - static_cast<double>(w)));
    }
    c.maxRelError = c.maxAbsDiff;
    return c;
  }
  double scale = 0;
  for (int64_t i = 0; i < want.numel(); ++i)
    if (const double w = std::fabs(want.getDouble(i)); std::isfinite(w)) scale = std::max(scale, w);
  const double atol = OutputCheck::kAtol * std::max(1.0, scale);
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double w = want.getDouble(i), g = got.getDouble(i);
    if ((std::isnan(w) && std::isnan(g)) || (std::isinf(w) && g == w)) continue;
    const double d = std::fabs(g - w);
    if (!std::isfinite(w) || !(d <= atol + OutputCheck::kRtol * std::fabs(w))) ++c.mismatched;
    if (!(d <= c.maxAbsDiff)) c.maxAbsDiff = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
  }
  c.maxRelError = scale > 0 ? c.maxAbsDiff / scale : c.maxAbsDiff;
  return c;
}

}  // namespace

OutputCheck compareOutputs(const ir::Graph& reference, const std::vector<ir::Tensor>& got,
                           const std::vector<ir::Tensor>& want) {
  OutputCheck check;
  check.match = got.size() == want.size();
  for (size_t k = 0; k < std::min(got.size(), want.size()); ++k) {
    const std::string name =
        k < reference.outputs().size() ? reference.value(reference.outputs()[k]).name : std::to_string(k);
    OutputComparison c = compareOne(name, got[k], want[k]);
    check.match = check.match && c.sameShape && c.mismatched == 0;
    check.maxAbsDiff = std::max(check.maxAbsDiff, c.maxAbsDiff);
    check.maxRelError = std::max(check.maxRelError, c.maxRelError);
    check.outputs.push_back(std::move(c));
  }
  return check;
}

std::string outputRuleText() {
  return fmt::format("|diff| <= {:.0e} x max(1, max|ref|) + {:.0e} x |ref|", OutputCheck::kAtol, OutputCheck::kRtol);
}

std::string mismatchMessage(const OutputComparison& c) {
  if (!c.sameShape) return "output '" + c.name + "' has a different shape or dtype than the reference's";
  return fmt::format("output '{}' differs from the reference in {} of {} elements (max |diff| {:.3g}, {:.2e} of its "
                     "largest value; rule {})",
                     c.name, c.mismatched, c.elements, c.maxAbsDiff, c.maxRelError, outputRuleText());
}

}  // namespace rammer::pipeline

#include "viz/models/timeline_time_axis.h"

#include <algorithm>
#include <cmath>

namespace rammer::viz {

namespace {

struct Unit {
  double perUs;  // how many of this unit make one microsecond
  const char* name;
};

// The unit in which |us| reads as 1..999.
Unit unitFor(double us) {
  const double a = std::fabs(us);
  if (a >= 1e6) return {1e-6, "s"};
  if (a >= 1e3) return {1e-3, "ms"};
  if (a >= 1.0 || a == 0.0) return {1.0, "µs"};
  return {1e3, "ns"};
}

}  // namespace

double niceTickStep(double minStepUs) {
  if (!(minStepUs > 0) || !std::isfinite(minStepUs)) return 1.0;
  const double decade = std::pow(10.0, std::floor(std::log10(minStepUs)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    // A small relative slack so 0.2 (stored as 0.2000000001) picks 2, not 5.
    if (m * decade >= minStepUs * (1 - 1e-9)) return m * decade;
  }
  return 10.0 * decade;
}

std::vector<double> tickTimes(double t0Us, double t1Us, double stepUs, int maxTicks) {
  std::vector<double> ticks;
  if (!(stepUs > 0) || !(t1Us >= t0Us) || !std::isfinite(t0Us) || !std::isfinite(t1Us)) return ticks;
  const double first = std::ceil(t0Us / stepUs);
  const double last = std::floor(t1Us / stepUs);
  if (last - first + 1 > maxTicks) return ticks;
  for (double k = first; k <= last; k += 1) ticks.push_back(k * stepUs);
  return ticks;
}

QString formatDuration(double us) {
  if (!std::isfinite(us)) return QStringLiteral("?");
  const Unit u = unitFor(us);
  const double v = us * u.perUs;
  const double a = std::fabs(v);
  const int decimals = a >= 100 || a == 0 ? 0 : a >= 10 ? 1 : 2;
  return QStringLiteral("%1 %2").arg(v, 0, 'f', decimals).arg(QString::fromUtf8(u.name));
}

QString formatTickLabel(double tUs, double stepUs) {
  // The unit in which the step reads 0.1..100, so labels stay short
  // ("1.5 ms", not "1500 µs") and one ruler uses one unit.
  const Unit u = unitFor(10 * std::max(std::fabs(stepUs), 1e-12));
  const double step = stepUs * u.perUs;
  // Steps of 1/2/5 x 10^k need max(0, -k) decimals.
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  double v = tUs * u.perUs;
  if (std::fabs(v) < step * 1e-6) v = 0;  // no "-0"
  return QStringLiteral("%1 %2").arg(v, 0, 'f', std::clamp(decimals, 0, 9)).arg(QString::fromUtf8(u.name));
}

}  // namespace rammer::viz

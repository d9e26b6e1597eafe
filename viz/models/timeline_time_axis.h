#pragma once
// The time ruler's arithmetic: "nice" tick steps (1, 2, 5 x 10^k) and short
// human labels for times and durations in microseconds (the Trace's unit).
#include <QString>
#include <vector>

namespace rammer::viz {

// The smallest 1/2/5 x 10^k step >= minStepUs (minStepUs > 0; else 1).
double niceTickStep(double minStepUs);

// Tick times k*step inside [t0Us, t1Us], at most maxTicks of them.
std::vector<double> tickTimes(double t0Us, double t1Us, double stepUs, int maxTicks = 10000);

// "850 ns", "12.5 µs", "3.20 ms", "1.25 s": three significant digits, with
// the unit chosen by magnitude. Negative values keep their sign.
QString formatDuration(double us);
// A ruler label for time t when ticks are `stepUs` apart: in the unit where
// the step reads 0.1..100, with as many decimals as the step needs
// ("120 µs", "1.5 ms").
QString formatTickLabel(double tUs, double stepUs);

}  // namespace rammer::viz

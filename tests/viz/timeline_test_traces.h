#pragma once
// Synthetic sim::Traces for the timeline tests and benchmark: a predicted
// trace shaped like a wavefront run (programs one after another; in each,
// ops in consecutive chunks spread round-robin over SMs x vEUs; a barrier
// in front of some rTasks) of any size, deterministic for a seed, and a
// "measured" copy with per-rTask slip.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/sim/trace.h"

namespace rammer::viztest {

// splitmix64: tiny, portable and deterministic (std distributions are not
// the same on every standard library).
class TraceRng {
 public:
  explicit TraceRng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53; }
  int64_t below(int64_t n) { return n <= 0 ? 0 : static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t s_;
};

struct SyntheticTraceOptions {
  int64_t tasks = 1'000'000;
  int sms = 132;
  int veusPerSM = 8;
  int programs = 4;
  int opsPerProgram = 6;
  double barrierProbability = 0.1;
  double minTaskUs = 0.5;
  double maxTaskUs = 3.0;
  uint64_t seed = 1;
};

inline std::shared_ptr<sim::Trace> makeSyntheticTrace(const SyntheticTraceOptions& o) {
  static const char* const kTypes[] = {"Conv", "MatMul", "Relu", "Add", "LSTMCell", "Softmax"};
  auto trace = std::make_shared<sim::Trace>();
  sim::Trace& t = *trace;
  t.source = "predicted: synthetic";
  t.device = "h100";
  t.sms = o.sms;
  const int numOps = o.programs * o.opsPerProgram;
  for (int op = 0; op < numOps; ++op) {
    t.opTypes.push_back(kTypes[op % 6]);
    t.opNames.push_back(std::string(kTypes[op % 6]) + "_" + std::to_string(op));
    t.kernelNames.push_back("rk_" + std::to_string(op) + "_64x64");
  }
  TraceRng rng(o.seed);
  const int veus = o.sms * o.veusPerSM;
  std::vector<int64_t> nextRTask(static_cast<size_t>(numOps), 0);
  t.tasks.reserve(static_cast<size_t>(o.tasks));
  double programStart = 0;
  for (int p = 0; p < o.programs; ++p) {
    const int64_t count = o.tasks / o.programs + (p == o.programs - 1 ? o.tasks % o.programs : 0);
    double programEnd = programStart;
    for (int v = 0; v < veus; ++v) {
      double cursor = programStart;
      int32_t order = 0;
      // This vEU runs program tasks k = v, v + veus, ...; op by chunk of k.
      for (int64_t k = v; k < count; k += veus) {
        if (order > 0 && rng.uniform(0, 1) < o.barrierProbability) {
          sim::BarrierEvent b;
          b.program = p;
          b.veu = v;
          b.order = order++;
          b.sm = sim::predictedSM(v, o.sms);
          b.startUs = cursor;
          b.endUs = cursor + rng.uniform(0.2, 2.0);
          b.lastSlot = {static_cast<int32_t>((v + 1) % veus), std::max<int32_t>(0, order - 2)};
          cursor = b.endUs;
          t.barriers.push_back(b);
        }
        sim::TaskEvent e;
        e.task.op = p * o.opsPerProgram + static_cast<int32_t>(k * o.opsPerProgram / count);
        e.task.rtask = nextRTask[static_cast<size_t>(e.task.op)]++;
        e.program = p;
        e.veu = v;
        e.order = order++;
        e.sm = sim::predictedSM(v, o.sms);
        e.startUs = cursor;
        e.endUs = cursor + rng.uniform(o.minTaskUs, o.maxTaskUs);
        cursor = e.endUs;
        t.tasks.push_back(e);
      }
      programEnd = std::max(programEnd, cursor);
    }
    t.programs.push_back({p, veus, o.veusPerSM, programStart, programEnd});
    programStart = programEnd + 2.0;  // launch gap
  }
  t.totalUs = t.programs.empty() ? 0 : t.programs.back().endUs;
  return trace;
}

// A "measurement" of `predicted`: every rTask shifted by a per-task slip
// (slip(i) = (i % 7 - 3) * 0.1 µs, so exactly computable), rTasks
// with i % dropEvery == 0 left out, tasks listed in reverse order.
inline std::shared_ptr<sim::Trace> makeMeasuredCopy(const sim::Trace& predicted, int64_t dropEvery = 0) {
  auto m = std::make_shared<sim::Trace>(predicted);
  m->measured = true;
  m->source = "measured: synthetic";
  m->tasks.clear();
  for (size_t i = predicted.tasks.size(); i-- > 0;) {
    if (dropEvery > 0 && static_cast<int64_t>(i) % dropEvery == 0) continue;
    sim::TaskEvent e = predicted.tasks[i];
    const double slip = (static_cast<double>(i % 7) - 3) * 0.1;
    e.startUs += slip;
    e.endUs += slip;
    m->tasks.push_back(e);
  }
  return m;
}

inline double expectedSlip(size_t predictedIndex) { return (static_cast<double>(predictedIndex % 7) - 3) * 0.1; }

}  // namespace rammer::viztest

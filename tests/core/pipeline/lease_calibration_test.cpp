// The cost model against the GPU, in CI, without a GPU (issue #28 item 3):
// the committed H100 lease's runs, their plans rebuilt from their traces;
// the calibration fitted on the RammerBase (sequential) and Rammer
// (wavefront) runs and every greedy, IOS and GraphTurbo run predicted. The
// table of every run goes to the test's output.
//
// The goal: median |error| <= 20%, every plan <= 40%, and no two
// policies of a model that measured more than 10% apart ranked the other
// way. The median holds (9.3% when written, the analytic model 53.5%); the
// other two do not yet (the largest error 71.8%, lstm_tc's greedy plan:
// its 255,845 rTasks ran variants the fitted runs never ran, and the
// rebuilt greedy plans lack greedy's stage barriers, which a trace does not
// record; 4 pairs misranked), so they are held where they are: a change
// that makes either worse fails here too. The same for the lease of this
// build's kernels below.
#include "core/pipeline/lease_calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>

namespace rammer::pipeline {
namespace {

namespace fs = std::filesystem;

// Fits `lease` on its RammerBase and Rammer runs, prints every run, and
// returns the calibration with the number of runs rebuilt and judged.
struct Judged {
  LeaseCalibration c;
  size_t rebuilt = 0, judged = 0;
};
Judged judgeLease(const char* lease, std::vector<std::string> fitPolicies = {"sequential", "wavefront"}) {
  const fs::path source(RAMMER_SOURCE_DIR), build(RAMMER_BINARY_DIR);
  LeaseCalibrationOptions o;
  o.lease = source / "tests/data/gpu_traces" / lease;
  o.modelFolders = {source / "samples/models", source / "tests/data/transformers", build / "samples"};
  o.fitPolicies = std::move(fitPolicies);
  auto c = calibrateLease(o);
  EXPECT_TRUE(c.ok()) << c.errorText();
  if (!c.ok()) return {};
  Judged out{*c};
  std::printf("%-34s %6s %12s %12s %8s %12s %8s\n", "run", "fitted", "measured us", "calibrated", "error", "analytic",
              "error");
  for (const LeaseRunResult& r : c->runs) {
    if (!r.skipped.empty()) {
      std::printf("%-34s skipped: %s\n", r.key.c_str(), r.skipped.c_str());
      continue;
    }
    ++out.rebuilt;
    out.judged += r.fitted ? 0 : 1;
    std::printf("%-34s %6s %12.1f %12.1f %+7.0f%% %12.1f %+7.0f%%\n", r.key.c_str(), r.fitted ? "yes" : "",
                r.measuredUs, r.calibratedUs, 100 * r.calibratedError(), r.analyticUs, 100 * r.analyticError());
  }
  for (const Misranking& m : c->misranked)
    std::printf("misranked: %s: %s measured %.2fx faster than %s\n", m.model.c_str(), m.faster.c_str(), m.measuredRatio,
                m.slower.c_str());
  std::printf("%zu held-out runs: median |error| %.1f%% (analytic %.1f%%), largest %.1f%%, %zu pairs misranked\n",
              c->judged, 100 * c->medianAbsError, 100 * c->analyticMedianAbsError, 100 * c->maxAbsError,
              c->misranked.size());
  EXPECT_EQ(c->judged, out.judged);
  // What was fitted: barrier hand-offs and waiting vEUs measured, not the presets.
  EXPECT_GT(c->calibration.barrierSamples, 1000);
  EXPECT_GT(c->calibration.waitingSlowdown, 0.0);
  EXPECT_GT(c->calibration.launchSamples, 10);
  return out;
}

bool samplesBuilt() { return fs::exists(fs::path(RAMMER_BINARY_DIR) / "samples" / "alexnet.onnx"); }

TEST(LeaseCalibration, FittedOnRammerBaseAndRammerPredictsTheOtherPoliciesOfTheH100Lease) {
  if (!samplesBuilt()) GTEST_SKIP() << "the sample models are not built";
  const Judged j = judgeLease("2026-11-26-h100");
  const LeaseCalibration& c = j.c;
  // Enough of the lease is rebuilt and judged for the numbers to mean something.
  EXPECT_GE(j.rebuilt, 50u);
  EXPECT_GE(j.judged, 25u);
  // The goal that holds.
  EXPECT_LE(c.medianAbsError, 0.20);
  EXPECT_LT(c.medianAbsError, 0.5 * c.analyticMedianAbsError);
  // The two that do not yet hold, where they are.
  EXPECT_LE(c.maxAbsError, 0.75);
  EXPECT_LE(c.misranked.size(), 4u);
}

// The lease of 2026-11-27 ran this build's kernels (epilogues, fused RNN
// cells, split-K): every sample and tiny transformer under every policy.
// The goals do not hold on it yet (28.2% median when written): its
// end-to-end latencies hold 1,000 split-K clears per run that the model
// does not know of (lstm_tc, seq2seq, deepspeech2: 1.0-1.6 ms, since merged
// into one memset per launch, core/codegen/zero_ranges.h), and the RNN
// wavefront programs run 3-5x longer than their dependency chains: the
// rTasks of one operator start spread over 15-50 us, which the constant
// barrier hand-off does not model. Held where they are.
TEST(LeaseCalibration, TheLeaseOfThisBuildsKernelsIsRebuiltAndHeldWhereItIs) {
  if (!samplesBuilt()) GTEST_SKIP() << "the sample models are not built";
  const Judged j = judgeLease("2026-11-27-h100");
  const LeaseCalibration& c = j.c;
  EXPECT_GE(j.rebuilt, 61u) << "every run but GraphTurbo's groups";
  EXPECT_GE(j.judged, 33u);
  EXPECT_LE(c.medianAbsError, 0.29);
  EXPECT_LT(c.medianAbsError, 0.55 * c.analyticMedianAbsError);
  EXPECT_LE(c.maxAbsError, 0.85);
  EXPECT_LE(c.misranked.size(), 5u);
}

// The fifth lease (2026-11-27b) ran the dynamic policy beside the static
// ones. Fitted on RammerBase, Rammer and dynamic runs, the calibration
// reads a dynamic run's gaps as its ready queue's dispatches (3.1 us: one
// claim and gate arrivals that 264-528 vEUs contend for) and the hand-off
// of an operator whose gate opened to an idle vEU; the dynamic runs,
// simulated as their queues, land within 20% (median) and beside the
// wavefront runs in the measured order but for two models (lstm_tc, where
// the wavefront's barrier waits run 3-5x its dependency chains, and
// seq2seq). With the dispatch fitted but no queue hand-off (a consumer
// taken the moment its gate opened), 10 of the 12 pairs measured more than
// 10% apart were ranked the other way and the dynamic runs' median error
// was 17% low.
TEST(LeaseCalibration, TheDynamicRunsAreFittedAsDispatchesAndPredictedAsQueues) {
  if (!samplesBuilt()) GTEST_SKIP() << "the sample models are not built";
  const Judged j = judgeLease("2026-11-27b-h100", {"sequential", "wavefront", "dynamic"});
  const LeaseCalibration& c = j.c;
  EXPECT_GE(j.rebuilt, 85u) << "every run but GraphTurbo's groups";
  EXPECT_GE(j.judged, 37u);
  EXPECT_LE(c.medianAbsError, 0.23);
  EXPECT_LE(c.maxAbsError, 0.60);
  EXPECT_LE(c.misranked.size(), 2u);
  const sim::Calibration& k = c.calibration;
  EXPECT_GT(k.dispatchSamples, 50000);
  EXPECT_GT(k.dispatchUs, 2.5);
  EXPECT_LT(k.dispatchUs, 3.5);
  EXPECT_GT(k.queueHandoffSamples, 1000);
  EXPECT_GT(k.queueHandoffUs, 0.5);
  EXPECT_LT(k.queueHandoffUs, k.barrierUs) << "one entry polled, not a barrier's many counters";

  std::map<std::string, const LeaseRunResult*> wavefront, dynamic;
  std::vector<double> errors;
  int pairs = 0, misordered = 0;
  for (const LeaseRunResult& r : c.runs) {
    if (!r.skipped.empty() || (r.policy != "wavefront" && r.policy != "dynamic")) continue;
    (r.policy == "wavefront" ? wavefront : dynamic)[r.model] = &r;
  }
  for (const auto& [model, d] : dynamic) {
    errors.push_back(std::abs(d->calibratedError()));
    const auto w = wavefront.find(model);
    if (w == wavefront.end()) continue;
    const double measured = d->measuredUs / w->second->measuredUs;
    if (measured < 1.1 && measured > 1 / 1.1) continue;
    ++pairs;
    const double predicted = d->calibratedUs / w->second->calibratedUs;
    if ((measured > 1) != (predicted > 1)) {
      ++misordered;
      std::printf("dynamic against wavefront misordered: %s (measured %.2fx, predicted %.2fx)\n", model.c_str(),
                  measured, predicted);
    }
  }
  ASSERT_EQ(errors.size(), 16u) << "six paper models, three samples, seven tiny transformers";
  std::sort(errors.begin(), errors.end());
  const double median = 0.5 * (errors[7] + errors[8]);
  std::printf("dynamic runs: median |error| %.1f%%, largest %.1f%%; %d of %d pairs misordered\n", 100 * median,
              100 * errors.back(), misordered, pairs);
  EXPECT_LE(median, 0.20);
  EXPECT_LE(errors.back(), 0.40);
  EXPECT_GE(pairs, 10);
  EXPECT_LE(misordered, 2);
}

}  // namespace
}  // namespace rammer::pipeline

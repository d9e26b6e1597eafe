// The calibration (issue #28 item 2): runs simulated with a known
// calibration are fitted back to it, and the fitted model predicts them to
// the microsecond; the JSON round-trips and bad files are refused by field;
// the model answers from the fit only for its device and its families; a
// dynamic run's gaps are fitted as its ready queue's dispatches.
#include "core/sim/calibration.h"

#include <gtest/gtest.h>

#include <set>

#include "core/sim/analytic_cost_model.h"
#include "core/sim/measured_plan.h"
#include "core/sim/simulator.h"
#include "tests/core/codegen/codegen_fixtures.h"

namespace rammer::sim {
namespace {

// inception_block with its Concat copying: run in place
// (kernels/in_place.h) it moves nothing, which leaves its family
// nothing to fit and the dynamic run fewer gaps to fit on.
schedule::Plan planCopying(const ir::Graph& graph, const std::string& policy) {
  schedule::Constraints copying;
  copying.kernelFor["concat"] = "copy_1k";
  return testing::planSample(graph, policy, "h100", copying);
}

// Every family of `plans` with its own fixed cost and scale.
Calibration truthFor(const std::vector<const schedule::Plan*>& plans) {
  Calibration c;
  c.device = "h100";
  c.source = "test";
  std::set<std::string> families;
  for (const auto* p : plans)
    for (const auto& op : p->ops)
      if (!op.isView) families.insert(op.kernel.family);
  double i = 0;
  for (const std::string& f : families) {
    c.families[f] = RTaskFit{1.5 + 0.5 * i, 2 + i, 1, 0};
    i += 1;
  }
  c.launchUs = 3.25;
  c.barrierUs = 0.75;
  c.launchSamples = c.barrierSamples = 1;
  return c;
}

// inception_block planned by `policy`, "measured" by simulating it with a
// calibration of every family it runs, and the fit of that run.
struct SimulatedRun {
  schedule::Plan plan;
  Calibration truth;
  Trace measured;
  ir::Result<Calibration> fit = ir::makeError("not fitted");
};
SimulatedRun fitSimulated(const std::string& policy) {
  SimulatedRun r;
  r.plan = planCopying(testing::optimizedSampleGraph("inception_block"), policy);
  r.truth = truthFor({&r.plan});
  auto model = std::make_shared<const CalibratedCostModel>(std::make_shared<const Calibration>(r.truth));
  auto t = Simulator(model).run(r.plan);
  if (!t) throw std::runtime_error(t.errorText());
  r.measured = std::move(t).value();
  r.measured.measured = true;
  auto device = device::loadDevice("h100");
  if (!device) throw std::runtime_error(device.errorText());
  r.fit = fitCalibration({MeasuredRun{"inception_block." + policy, &r.plan, &r.measured, 0}}, *device);
  return r;
}

TEST(Calibration, AFitRecoversTheModelTheRunsWereSimulatedWith) {
  const SimulatedRun run = fitSimulated("sequential");
  const schedule::Plan& sequential = run.plan;
  const Calibration& truth = run.truth;
  const Trace& measured = run.measured;
  const auto& fit = run.fit;
  ASSERT_TRUE(fit.ok()) << fit.errorText();
  EXPECT_EQ(fit->device, "h100");
  EXPECT_EQ(fit->families.size(), truth.families.size());
  // One operator per program and every operator in one wave: the roofline
  // each rTask is scaled from is the one the runs were simulated with.
  for (const auto& [family, f] : fit->families) {
    SCOPED_TRACE(family);
    EXPECT_LT(f.medianError, 1e-9);
    if (f.ops >= 2 && f.fixedUs > 0 && f.scale > 0) {
      EXPECT_NEAR(f.fixedUs, truth.families.at(family).fixedUs, 1e-6);
      EXPECT_NEAR(f.scale, truth.families.at(family).scale, 1e-6);
    }
  }
  EXPECT_NEAR(fit->launchUs, 3.25, 1e-9);
  EXPECT_EQ(fit->launchSamples, static_cast<int>(sequential.programs.size()) - 1);
  EXPECT_NEAR(fit->taskGapUs, 0, 1e-9);
  // The fitted model predicts the run it was fitted on: to 1%, since a
  // family of one operator gets a one-term fit through its median rTask,
  // which the rTasks of a partial last wave (fewer vEUs sharing DRAM) miss.
  auto again =
      Simulator(std::make_shared<const CalibratedCostModel>(std::make_shared<const Calibration>(*fit))).run(sequential);
  ASSERT_TRUE(again.ok());
  EXPECT_NEAR(again->totalUs, measured.totalUs, 0.01 * measured.totalUs);
}

TEST(Calibration, BarrierHandOffsAreMeasuredWhereAVEUWaited) {
  const SimulatedRun run = fitSimulated("wavefront");
  const auto& fit = run.fit;
  ASSERT_TRUE(fit.ok()) << fit.errorText();
  EXPECT_GT(fit->barrierSamples, 0);
  EXPECT_NEAR(fit->barrierUs, 0.75, 1e-9);
  EXPECT_GT(fit->gapSamples, 0);
  EXPECT_NEAR(fit->taskGapUs, 0, 1e-9);  // back to back
}

// A dynamic plan "measured" by simulating it with a known dispatch cost:
// replayed where its rTasks ran, the run's gaps between two rTasks of one
// operator are that cost (none is a static fetch or a barrier hand-off),
// and the fit predicts the run, simulated again as the dynamic program it was.
TEST(Calibration, ADynamicRunsGapsAreItsDispatches) {
  const ir::Graph graph = testing::optimizedSampleGraph("inception_block");
  const schedule::Plan plan = planCopying(graph, "dynamic");
  Calibration truth = truthFor({&plan});
  truth.dispatchUs = 2.5;
  truth.dispatchSamples = 1;
  auto model = std::make_shared<const CalibratedCostModel>(std::make_shared<const Calibration>(truth));
  auto measured = Simulator(model).run(plan);
  ASSERT_TRUE(measured.ok()) << measured.errorText();
  measured->measured = true;
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device.ok());
  const auto options = policyOptions(std::make_shared<const AnalyticCostModel>());
  auto replay = planOfMeasuredTrace(*measured, graph, *device, options);
  ASSERT_TRUE(replay.ok()) << replay.errorText();

  auto fit = fitCalibration({MeasuredRun{"inception_block.dynamic", &*replay, &*measured, 0, true}}, *device);
  ASSERT_TRUE(fit.ok()) << fit.errorText();
  EXPECT_GT(fit->dispatchSamples, 50);
  EXPECT_NEAR(fit->dispatchUs, 2.5, 1e-6);
  EXPECT_EQ(fit->gapSamples, 0);
  EXPECT_EQ(fit->barrierSamples, 0) << "the replay's barriers are the dataflow's, not waits the run had";
  // As a static run, the same gaps would have been fetches.
  auto asStatic = fitCalibration({MeasuredRun{"inception_block.dynamic", &*replay, &*measured, 0, false}}, *device);
  ASSERT_TRUE(asStatic.ok());
  EXPECT_EQ(asStatic->dispatchSamples, 0);
  EXPECT_NEAR(asStatic->taskGapUs, 2.5, 1e-6);

  auto queue = planOfMeasuredTrace(*measured, graph, *device, options, MeasuredPlanForm::Dynamic);
  ASSERT_TRUE(queue.ok()) << queue.errorText();
  auto again =
      Simulator(std::make_shared<const CalibratedCostModel>(std::make_shared<const Calibration>(*fit))).run(*queue);
  ASSERT_TRUE(again.ok()) << again.errorText();
  EXPECT_NEAR(again->totalUs, measured->totalUs, 0.05 * measured->totalUs);
}

TEST(Calibration, JsonRoundTripsAndBadFilesNameTheField) {
  Calibration c;
  c.device = "h100";
  c.gpu = "NVIDIA H100 80GB HBM3";
  c.source = "lease (3 runs)";
  c.variants["gemm_64x64"] = RTaskFit{1.25, 3.5, 4, 0.125};
  c.families["gemm"] = RTaskFit{0.5, 2, 9, 0.25};
  c.taskGapUs = 0.375;
  c.launchUs = 4.5;
  c.barrierUs = 1.5;
  c.dispatchUs = 2.75;
  c.gapSamples = 10, c.launchSamples = 2, c.barrierSamples = 7, c.dispatchSamples = 5;
  auto back = parseCalibration(calibrationToJson(c), "c.json");
  ASSERT_TRUE(back.ok()) << back.errorText();
  EXPECT_EQ(back->gpu, c.gpu);
  EXPECT_EQ(back->source, c.source);
  EXPECT_DOUBLE_EQ(back->variants.at("gemm_64x64").scale, 3.5);
  EXPECT_EQ(back->families.at("gemm").ops, 9);
  EXPECT_DOUBLE_EQ(back->taskGapUs, 0.375);
  EXPECT_EQ(back->barrierSamples, 7);
  EXPECT_DOUBLE_EQ(back->dispatchUs, 2.75);
  EXPECT_EQ(back->dispatchSamples, 5);

  auto error = [](const std::string& text) { return parseCalibration(text, "c.json").errorText(); };
  EXPECT_NE(error("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error(R"({"format": "rammer-profile-db"})").find("not a calibration"), std::string::npos);
  std::string json = calibrationToJson(c);
  const std::string negative = std::string(json).replace(json.find("\"barrier_us\": 1.5"), 17, "\"barrier_us\": -1");
  EXPECT_NE(error(negative).find("\"barrier_us\" must be a non-negative number"), std::string::npos) << error(negative);
  const std::string badFit = std::string(json).replace(json.find("\"scale\": 3.5"), 12, "\"scale\": \"x\"");
  EXPECT_NE(error(badFit).find("variants 'gemm_64x64': \"scale\""), std::string::npos) << error(badFit);
}

TEST(Calibration, TheModelAnswersFromTheFitOnlyForItsDeviceAndFamilies) {
  const ir::Graph graph = testing::optimizedSampleGraph("sample_cnn");
  const schedule::Plan plan = testing::planSample(graph, "sequential");
  const kernels::RKernel& k = plan.ops.front().kernel;
  auto h100 = device::loadDevice("h100");
  auto a100 = device::loadDevice("a100");
  ASSERT_TRUE(h100.ok() && a100.ok());
  auto c = std::make_shared<Calibration>();
  c->device = "h100";
  c->families[k.family] = RTaskFit{2, 3, 5, 0.1};
  c->taskGapUs = 0.5;
  const CalibratedCostModel model(c);
  const AnalyticCostModel analytic;
  const TaskContext ctx{4, 0, 0, 0};
  EXPECT_NEAR(model.taskTimeUs(k, *h100, ctx), 2 + 3 * rooflineUs(k, *h100, ctx) + 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(model.taskTimeUs(k, *a100, ctx), analytic.taskTimeUs(k, *a100, ctx));  // another device
  c->families.clear();  // a family it never fitted: the analytic time, plus the fetch every rTask pays
  EXPECT_DOUBLE_EQ(model.taskTimeUs(k, *h100, ctx), analytic.taskTimeUs(k, *h100, ctx) + 0.5);
  // Overheads: the device's own where nothing was measured.
  EXPECT_DOUBLE_EQ(model.launchOverheadUs(*h100), h100->launchOverheadUs);
  c->launchUs = 7, c->launchSamples = 3;
  EXPECT_DOUBLE_EQ(model.launchOverheadUs(*h100), 7);
  EXPECT_DOUBLE_EQ(model.launchOverheadUs(*a100), a100->launchOverheadUs);
  EXPECT_DOUBLE_EQ(model.dispatchOverheadUs(*h100), h100->dispatchLatencyUs);
  c->dispatchUs = 2.25, c->dispatchSamples = 40;
  EXPECT_DOUBLE_EQ(model.dispatchOverheadUs(*h100), 2.25);
  EXPECT_DOUBLE_EQ(model.dispatchOverheadUs(*a100), a100->dispatchLatencyUs);
  // A calibration written before dynamic runs were fitted keeps the device's dispatch.
  std::string old = calibrationToJson(*c);
  old.replace(old.find("\"dispatch_samples\": 40"), 22, "\"dispatch_samples\": 0");
  auto parsed = parseCalibration(old, "old.json");
  ASSERT_TRUE(parsed.ok()) << parsed.errorText();
  EXPECT_DOUBLE_EQ(CalibratedCostModel(std::make_shared<const Calibration>(*parsed)).dispatchOverheadUs(*h100),
                   h100->dispatchLatencyUs);
}

}  // namespace
}  // namespace rammer::sim

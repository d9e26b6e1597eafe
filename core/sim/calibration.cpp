#include "core/sim/calibration.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>

#include "core/kernels/kernel_efficiency.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/json_fields.h"
#include "core/sim/measured_trace.h"
#include "core/sim/profile_db.h"
#include "core/sim/simulator.h"

namespace rammer::sim {

namespace {

using jsonio::FieldReader;
using jsonio::Json;

double median(std::vector<double> v) { return summarizeTimes(std::move(v)).medianUs; }

// The roofline at efficiency 1, what the simulator runs the measured plans with.
class RooflineModel : public CostModel {
 public:
  std::string name() const override { return "roofline (efficiency 1)"; }
  double taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                    const TaskContext& context) const override {
    return rooflineUs(kernel, device, context);
  }
  double launchOverheadUs(const device::DeviceSpec& device) const override { return device.launchOverheadUs; }
  double barrierOverheadUs(const device::DeviceSpec& device) const override { return device.barrierLatencyUs; }
  double dispatchOverheadUs(const device::DeviceSpec& device) const override { return device.dispatchLatencyUs; }
};

// One operator of one run: its rTasks' median simulated roofline time and
// median measured time.
struct Point {
  double roofline = 0;
  double measured = 0;
};

// fixedUs + scale x roofline, both >= 0, least squares in relative error.
RTaskFit fitPoints(const std::vector<Point>& points) {
  double sw = 0, swr = 0, swrr = 0, swd = 0, swrd = 0;
  for (const Point& p : points) {
    const double w = 1 / (p.measured * p.measured);
    sw += w, swr += w * p.roofline, swrr += w * p.roofline * p.roofline;
    swd += w * p.measured, swrd += w * p.roofline * p.measured;
  }
  RTaskFit f;
  const double det = sw * swrr - swr * swr;
  if (det > 1e-9 * sw * swrr) {
    f.fixedUs = (swd * swrr - swr * swrd) / det;
    f.scale = (sw * swrd - swr * swd) / det;
  } else {
    f.fixedUs = -1;  // one roofline time: a scale alone
  }
  if (f.fixedUs < 0 || f.scale < 0) {
    const double scaleOnly = swrr > 0 ? swrd / swrr : 0;
    const double fixedOnly = sw > 0 ? swd / sw : 0;
    // Whichever one-term fit leaves less relative error.
    auto error = [&](double fixed, double scale) {
      double e = 0;
      for (const Point& p : points) e += std::pow((fixed + scale * p.roofline - p.measured) / p.measured, 2);
      return e;
    };
    if (swrr > 0 && error(0, scaleOnly) <= error(fixedOnly, 0))
      f.fixedUs = 0, f.scale = scaleOnly;
    else
      f.fixedUs = fixedOnly, f.scale = 0;
  }
  std::vector<double> errors;
  for (const Point& p : points) errors.push_back(std::abs(f.fixedUs + f.scale * p.roofline - p.measured) / p.measured);
  f.ops = static_cast<int>(points.size());
  f.medianError = median(errors);
  return f;
}

// At least this many operators, with roofline times at least this far
// apart, to fit a variant on its own (two points always fit exactly).
constexpr size_t kVariantOps = 3;
constexpr double kSpread = 1.05;

bool spread(const std::vector<Point>& points) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const Point& p : points) lo = std::min(lo, p.roofline), hi = std::max(hi, p.roofline);
  return hi > kSpread * lo;
}

// An operator's rTasks beside waiting vEUs: the median of each.
struct Crowded {
  const kernels::RKernel* kernel = nullptr;  // in a run's plan, which outlives the fit
  double roofline = 0, measured = 0, waiting = 0;
};

// What the runs hold, gathered run by run.
struct Samples {
  std::map<std::string, std::vector<Point>> byVariant, byFamily;  // rTasks with no vEU waiting beside them
  std::vector<Crowded> crowded;
  std::vector<double> gaps, handoffs, launches, dispatches, queueHandoffs;
};

// Per measured rTask (index into `tasks`): the other vEUs of its program on
// its SM that had not finished their streams and were not running an rTask
// when it started: those waiting at a barrier.
std::vector<int> waitingBeside(const std::vector<TaskEvent>& tasks) {
  struct Lane {
    std::vector<std::pair<double, double>> runs;  // (start, end), by start
  };
  std::map<std::pair<int32_t, int32_t>, std::map<int32_t, Lane>> bySM;  // (program, SM) -> vEU -> lane
  for (const TaskEvent& e : tasks) bySM[{e.program, e.sm}][e.veu].runs.emplace_back(e.startUs, e.endUs);
  for (auto& [key, lanes] : bySM)
    for (auto& [veu, lane] : lanes) std::sort(lane.runs.begin(), lane.runs.end());
  std::vector<int> out(tasks.size(), 0);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskEvent& e = tasks[i];
    const double t = e.startUs;
    for (const auto& [veu, lane] : bySM.at({e.program, e.sm})) {
      if (veu == e.veu || t >= lane.runs.back().second) continue;
      // Running at t: the last rTask that started at or before t has not ended.
      const auto after = std::make_pair(t, std::numeric_limits<double>::infinity());
      auto it = std::upper_bound(lane.runs.begin(), lane.runs.end(), after);
      const bool running = it != lane.runs.begin() && std::prev(it)->second > t;
      if (!running) ++out[i];
    }
  }
  return out;
}

ir::Result<bool> gather(const MeasuredRun& run, Samples& s) {
  const schedule::Plan& plan = *run.plan;
  size_t dropped = 0;
  const Trace measured = alignToPlan(*run.measured, plan, &dropped);
  if (dropped > 0)
    return ir::makeError(run.name + ": " + std::to_string(dropped) + " measured rTasks are not in its plan");
  static const Simulator simulator(std::make_shared<const RooflineModel>());
  auto predicted = simulator.run(plan);
  if (!predicted) return predicted.errors();
  std::map<schedule::RTask, const TaskEvent*> sim, meas;
  for (const TaskEvent& e : predicted->tasks) sim[e.task] = &e;
  for (const TaskEvent& e : measured.tasks) meas[e.task] = &e;

  // rTask times, per operator: those alone on their SM's program and those
  // beside waiting vEUs apart.
  struct Times {
    std::vector<double> roofline, measured, waiting;
  };
  std::map<int32_t, std::array<Times, 2>> perOp;  // [0]: none waiting beside, [1]: some
  const std::vector<int> waiting = waitingBeside(measured.tasks);
  for (size_t i = 0; i < measured.tasks.size(); ++i) {
    const TaskEvent& m = measured.tasks[i];
    auto it = sim.find(m.task);
    if (it == sim.end()) return ir::makeError(run.name + ": the simulation lacks a measured rTask");
    Times& t = perOp[m.task.op][waiting[i] > 0 ? 1 : 0];
    t.roofline.push_back(it->second->endUs - it->second->startUs);
    t.measured.push_back(m.endUs - m.startUs);
    t.waiting.push_back(waiting[i]);
  }
  for (auto& [op, times] : perOp) {
    const kernels::RKernel& k = plan.ops[static_cast<size_t>(op)].kernel;
    const Point alone{median(times[0].roofline), median(times[0].measured)};
    if (alone.measured > 0 && alone.roofline > 0) {  // else under the timer's resolution, or none
      s.byVariant[k.name].push_back(alone);
      s.byFamily[k.family].push_back(alone);
    }
    const Crowded c{&k, median(times[1].roofline), median(times[1].measured), median(times[1].waiting)};
    if (c.measured > 0 && c.roofline > 0 && c.waiting > 0) s.crowded.push_back(c);
  }

  // Gaps on each vEU: between two rTasks of one operator with no barrier
  // between (the persistent loop's fetch; between operators a policy may
  // have ordered more than the dataflow, greedy's stages, which the trace
  // does not record), and after a barrier the vEU had to wait at.
  for (const schedule::ProgramInfo& info : plan.programs) {
    const schedule::RProgram& prog = info.program;
    auto endOf = [&](schedule::Slot slot) -> double {
      const auto& in = prog.stream(slot.veu).at(static_cast<size_t>(slot.order));
      const auto* exec = std::get_if<schedule::Exec>(&in);
      if (!exec) return -1;
      auto it = meas.find(exec->task);
      return it == meas.end() ? -1 : it->second->endUs;
    };
    for (int v = 0; v < prog.numVEUs(); ++v) {
      double prevEnd = -1, release = -1;
      int32_t prevOp = -1;
      bool barrier = false;
      for (const schedule::Instr& in : prog.stream(v)) {
        if (const auto* b = std::get_if<schedule::Barrier>(&in)) {
          barrier = true;
          for (const schedule::Slot& w : b->waits) release = std::max(release, endOf(w));
          continue;
        }
        auto it = meas.find(std::get<schedule::Exec>(in).task);
        if (it == meas.end()) continue;
        const double start = it->second->startUs;
        const int32_t op = std::get<schedule::Exec>(in).task.op;
        if (prevEnd >= 0 && !barrier && op == prevOp)
          (run.dispatched ? s.dispatches : s.gaps).push_back(start - prevEnd);
        // A replayed dynamic run's barriers are the dataflow's, not what its vEUs waited at.
        if (prevEnd >= 0 && barrier && release > prevEnd && !run.dispatched) s.handoffs.push_back(start - release);
        prevEnd = it->second->endUs;
        prevOp = op;
        barrier = false;
        release = -1;
      }
    }
  }
  // A dynamic run's operators: from the last producer rTask's end to the
  // first rTask's start, where the vEU that took it was idle by then (its
  // previous rTask had ended): the gate opened, the push was seen, one
  // dispatch. Elsewhere the operator waited for a vEU or behind earlier
  // entries of the queue, which the simulation plays out itself.
  if (run.dispatched) {
    struct Span {
      const TaskEvent* first = nullptr;
      double lastEnd = -1;
    };
    std::map<int32_t, Span> span;                                                // by op
    std::map<std::pair<int32_t, int32_t>, std::vector<const TaskEvent*>> lanes;  // (program, vEU) -> by start
    for (const TaskEvent& e : measured.tasks) {
      Span& sp = span[e.task.op];
      if (!sp.first || e.startUs < sp.first->startUs) sp.first = &e;
      sp.lastEnd = std::max(sp.lastEnd, e.endUs);
      lanes[{e.program, e.veu}].push_back(&e);
    }
    for (auto& [key, lane] : lanes)
      std::sort(lane.begin(), lane.end(),
                [](const TaskEvent* a, const TaskEvent* b) { return a->startUs < b->startUs; });
    for (const auto& [op, sp] : span) {
      double opened = -1;
      for (int32_t p : plan.ops[static_cast<size_t>(op)].producers)
        if (auto it = span.find(p); it != span.end() && it->second.first->program == sp.first->program)
          opened = std::max(opened, it->second.lastEnd);
      if (opened < 0 || sp.first->startUs <= opened) continue;
      const auto& lane = lanes.at({sp.first->program, sp.first->veu});
      const auto at = std::find(lane.begin(), lane.end(), sp.first);
      if (at == lane.begin() || (*std::prev(at))->endUs <= opened)
        s.queueHandoffs.push_back(sp.first->startUs - opened);
    }
  }
  // Launches: from a program's last rTask to the next one's first (a
  // measured program's span starts at its first rTask, a simulated one's
  // at its launch).
  std::map<int32_t, std::pair<double, double>> spans;
  for (const TaskEvent& e : measured.tasks) {
    auto [it, fresh] = spans.try_emplace(e.program, e.startUs, e.endUs);
    if (!fresh) it->second = {std::min(it->second.first, e.startUs), std::max(it->second.second, e.endUs)};
  }
  for (auto it = spans.begin(); it != spans.end() && std::next(it) != spans.end(); ++it)
    s.launches.push_back(std::next(it)->second.first - it->second.second);
  return true;
}

}  // namespace

double rooflineUs(const kernels::RKernel& kernel, const device::DeviceSpec& device, const TaskContext& context) {
  static const AnalyticCostModel analytic;
  return analytic.taskTimeUs(kernel, device, context) * kernels::kernelEfficiency(kernel, device);
}

const RTaskFit* Calibration::fitFor(const kernels::RKernel& kernel) const {
  if (auto it = variants.find(kernel.name); it != variants.end()) return &it->second;
  if (auto it = families.find(kernel.family); it != families.end()) return &it->second;
  return nullptr;
}

ir::Result<Calibration> fitCalibration(const std::vector<MeasuredRun>& runs, const device::DeviceSpec& device) {
  if (runs.empty()) return ir::makeError("no measured runs to fit");
  Samples s;
  for (const MeasuredRun& run : runs) {
    if (!run.plan || !run.measured) return ir::makeError(run.name + ": no plan or no trace");
    if (auto ok = gather(run, s); !ok) return ok.errors();
  }
  Calibration c;
  c.device = device.id;
  for (const auto& [name, points] : s.byVariant)
    if (points.size() >= kVariantOps && spread(points)) c.variants[name] = fitPoints(points);
  for (const auto& [name, points] : s.byFamily) c.families[name] = fitPoints(points);
  // How much each waiting vEU slows an rTask beside it: least squares of
  // measured / fitted - 1 against the waiting count, through the origin.
  double sxy = 0, sxx = 0;
  for (const Crowded& k : s.crowded) {
    const RTaskFit* fit = c.fitFor(*k.kernel);
    if (!fit) continue;
    const double base = fit->fixedUs + fit->scale * k.roofline;
    if (!(base > 0)) continue;
    sxy += k.waiting * (k.measured / base - 1);
    sxx += k.waiting * k.waiting;
  }
  c.crowdedOps = static_cast<int>(s.crowded.size());
  c.waitingSlowdown = sxx > 0 ? std::max(0.0, sxy / sxx) : 0;
  // A gap is measured with the fetch of the next rTask in it; the model adds
  // that fetch to every rTask, so the launch and barrier terms leave it out.
  c.gapSamples = static_cast<int>(s.gaps.size());
  c.taskGapUs = std::max(0.0, median(s.gaps));
  c.launchSamples = static_cast<int>(s.launches.size());
  c.launchUs = std::max(0.0, median(s.launches) - c.taskGapUs);
  c.barrierSamples = static_cast<int>(s.handoffs.size());
  c.barrierUs = std::max(0.0, median(s.handoffs) - c.taskGapUs);
  c.dispatchSamples = static_cast<int>(s.dispatches.size());
  c.dispatchUs = std::max(0.0, median(s.dispatches) - c.taskGapUs);
  c.queueHandoffSamples = static_cast<int>(s.queueHandoffs.size());
  c.queueHandoffUs = std::max(0.0, median(s.queueHandoffs) - c.dispatchUs - c.taskGapUs);
  c.source = std::to_string(runs.size()) + (runs.size() == 1 ? " run" : " runs");
  return c;
}

// ------------------------------------------------------------------ JSON

namespace {

Json fitToJson(const RTaskFit& f) {
  return Json{{"fixed_us", f.fixedUs}, {"scale", f.scale}, {"ops", f.ops}, {"median_error", f.medianError}};
}

}  // namespace

std::string calibrationToJson(const Calibration& c) {
  Json j{{"format", Calibration::kFormat},
         {"version", Calibration::kVersion},
         {"device", c.device},
         {"gpu", c.gpu},
         {"source", c.source},
         {"task_gap_us", c.taskGapUs},
         {"launch_us", c.launchUs},
         {"barrier_us", c.barrierUs},
         {"dispatch_us", c.dispatchUs},
         {"waiting_slowdown", c.waitingSlowdown},
         {"crowded_ops", c.crowdedOps},
         {"gap_samples", c.gapSamples},
         {"launch_samples", c.launchSamples},
         {"barrier_samples", c.barrierSamples},
         {"dispatch_samples", c.dispatchSamples},
         {"queue_handoff_us", c.queueHandoffUs},
         {"queue_handoff_samples", c.queueHandoffSamples}};
  Json variants = Json::object(), families = Json::object();
  for (const auto& [name, f] : c.variants) variants[name] = fitToJson(f);
  for (const auto& [name, f] : c.families) families[name] = fitToJson(f);
  j["variants"] = std::move(variants);
  j["families"] = std::move(families);
  return j.dump(1) + "\n";
}

ir::Result<Calibration> parseCalibration(const std::string& text, const std::string& source) {
  auto error = [&source](const std::string& m) { return ir::makeError(m, {}, source); };
  Json j;
  if (auto why = jsonio::parseJson(text, j); !why.empty()) return error(why);
  if (!j.is_object() || j.value("format", std::string()) != Calibration::kFormat)
    return error(fmt::format("not a calibration: \"format\" must be \"{}\"", Calibration::kFormat));
  FieldReader top(j, "calibration");
  const int64_t version = top.integer("version", 1);
  Calibration c;
  c.device = top.text("device");
  c.gpu = top.text("gpu", false);
  c.source = top.text("source", false);
  c.taskGapUs = top.micros("task_gap_us");
  c.launchUs = top.micros("launch_us");
  c.barrierUs = top.micros("barrier_us");
  c.waitingSlowdown = top.micros("waiting_slowdown");
  c.crowdedOps = static_cast<int>(top.integer("crowded_ops", 0));
  c.gapSamples = static_cast<int>(top.integer("gap_samples", 0));
  c.launchSamples = static_cast<int>(top.integer("launch_samples", 0));
  c.barrierSamples = static_cast<int>(top.integer("barrier_samples", 0));
  // Calibrations before the dynamic policy have neither: the device's value stands.
  c.dispatchSamples = static_cast<int>(top.integer("dispatch_samples", 0));
  if (c.dispatchSamples > 0) c.dispatchUs = top.micros("dispatch_us");
  c.queueHandoffSamples = static_cast<int>(top.integer("queue_handoff_samples", 0));
  if (c.queueHandoffSamples > 0) c.queueHandoffUs = top.micros("queue_handoff_us");
  if (!top.ok()) return error(top.error());
  if (version > Calibration::kVersion)
    return error(fmt::format("calibration version {} is newer than this build reads (version {})", version,
                             Calibration::kVersion));
  if (c.device.empty()) return error("calibration: \"device\" must name a device");
  for (const char* group : {"variants", "families"}) {
    auto it = j.find(group);
    if (it == j.end() || !it->is_object()) return error(fmt::format("calibration: \"{}\" must be an object", group));
    auto& into = std::string(group) == "variants" ? c.variants : c.families;
    for (const auto& [name, f] : it->items()) {
      if (!f.is_object()) return error(fmt::format("calibration: {} '{}' must be an object", group, name));
      FieldReader r(f, fmt::format("{} '{}'", group, name));
      RTaskFit fit;
      fit.fixedUs = r.micros("fixed_us");
      fit.scale = r.micros("scale");
      fit.ops = static_cast<int>(r.integer("ops", 1));
      fit.medianError = r.micros("median_error");
      if (!r.ok()) return error(r.error());
      into[name] = fit;
    }
  }
  return c;
}

ir::Result<Calibration> loadCalibration(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return ir::makeError("cannot read the calibration", {}, file.string());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseCalibration(text, file.string());
}

// ------------------------------------------------------------ the model

CalibratedCostModel::CalibratedCostModel(std::shared_ptr<const Calibration> calibration,
                                         std::shared_ptr<const CostModel> fallback)
    : calibration_(std::move(calibration)),
      fallback_(fallback ? std::move(fallback) : std::make_shared<const AnalyticCostModel>()) {}

std::string CalibratedCostModel::name() const {
  return "calibrated profile (" + calibration_->device + ", " + calibration_->source + ")";
}

double CalibratedCostModel::taskTimeUs(const kernels::RKernel& kernel, const device::DeviceSpec& device,
                                       const TaskContext& context) const {
  if (device.id != calibration_->device) return fallback_->taskTimeUs(kernel, device, context);
  const RTaskFit* fit = calibration_->fitFor(kernel);
  const double body = fit ? fit->fixedUs + fit->scale * rooflineUs(kernel, device, context)
                          : fallback_->taskTimeUs(kernel, device, context);
  return body * (1 + calibration_->waitingSlowdown * context.waitingOnSM) + calibration_->taskGapUs;
}

double CalibratedCostModel::launchOverheadUs(const device::DeviceSpec& device) const {
  return device.id == calibration_->device && calibration_->launchSamples > 0 ? calibration_->launchUs
                                                                              : fallback_->launchOverheadUs(device);
}

double CalibratedCostModel::barrierOverheadUs(const device::DeviceSpec& device) const {
  return device.id == calibration_->device && calibration_->barrierSamples > 0 ? calibration_->barrierUs
                                                                               : fallback_->barrierOverheadUs(device);
}

double CalibratedCostModel::queueHandoffUs(const device::DeviceSpec& device) const {
  return device.id == calibration_->device && calibration_->queueHandoffSamples > 0
             ? calibration_->queueHandoffUs
             : CostModel::queueHandoffUs(device);  // a barrier hand-off, this calibration's
}

double CalibratedCostModel::dispatchOverheadUs(const device::DeviceSpec& device) const {
  return device.id == calibration_->device && calibration_->dispatchSamples > 0 ? calibration_->dispatchUs
                                                                                : fallback_->dispatchOverheadUs(device);
}

}  // namespace rammer::sim

// rammer-bench-schedule: scheduling time per policy, simulator throughput and
// the analytic model's predicted latency / SM efficiency of every sample and
// policy on one device. Not a test: the numbers go to docs/PERFORMANCE.md
// (tests/bench/run_schedule_bench.sh). Predictions are the analytic cost
// model's, not measurements.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/device/device_spec.h"
#include "core/schedule/policy.h"
#include "core/schedule/validator.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"

#include "tests/bench/bench_clock.h"
#include "tests/bench/bench_models.h"

namespace fs = std::filesystem;
using namespace rammer;

namespace {

using bench::Clock;
using bench::seconds;
using bench::threadCpuSeconds;

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n == 0 ? 0 : n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

struct Row {
  std::string sample, policy;
  size_t ops = 0, programs = 0, rtasks = 0, barriers = 0;
  int minVeusPerSM = 0, maxVeusPerSM = 0;
  double scheduleS = 0, scheduleCpuS = 0, simulateS = 0, simulateCpuS = 0, validateCpuS = 0;
  double latencyUs = 0, smEfficiency = 0;
  // The same programs if each launch overlapped the previous kernel's run
  // (asynchronous launches): sum over programs of max(launch, run time).
  double hiddenLaunchUs = 0;
  std::string note;
};

// The paper's RammerBase -> Rammer speedups (V100, batch 1).
const std::map<std::string, double> kPaperRatio = {{"lstm_tc", 29.71 / 4.73}, {"seq2seq", 9.27 / 3.66},
                                                   {"resnext29_cifar", 10.94 / 4.63}, {"deepspeech2", 7.89 / 4.69},
                                                   {"nasnet_cifar", 2.97 / 1.74},  {"alexnet", 0.96 / 0.96}};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Times scheduling and simulation of the sample models; prints tables for docs/PERFORMANCE.md");
  std::string dir;
  std::vector<std::string> samples = {"alexnet", "resnext29_cifar", "nasnet_cifar", "deepspeech2",
                                      "lstm_tc", "seq2seq",         "inception_block", "nasbench_cells"};
  std::vector<std::string> policies = schedule::policyNames();
  std::string deviceId = "h100";
  int repeat = 3;
  app.add_option("--samples", dir, "Folder with the generated <sample>.onnx files")->required();
  app.add_option("--only", samples, "Samples to run")->delimiter(',')->capture_default_str();
  app.add_option("--policies", policies, "Policies")->delimiter(',')->capture_default_str();
  app.add_option("--device", deviceId, "Device preset")->capture_default_str();
  app.add_option("--repeat", repeat, "Schedule and simulate each plan this many times (medians)")->capture_default_str();
  sim::AnalyticModelOptions modelOptions;
  app.add_option("--latency-cycles", modelOptions.memoryLatencyCycles, "Analytic model: DRAM round trip (cycles)")
      ->capture_default_str();
  app.add_option("--bytes-in-flight", modelOptions.bytesInFlightPerThread, "Analytic model: bytes in flight per thread")
      ->capture_default_str();
  double launchUs = -1, barrierUs = -1;
  app.add_option("--launch-us", launchUs, "Override the device's launch overhead (sensitivity runs)");
  app.add_option("--barrier-us", barrierUs, "Override the device's barrier latency (sensitivity runs)");
  bool fuseAttention = false;
  app.add_flag("--fuse-attention", fuseAttention, "Fuse attention into flash-attention rOperators");
  CLI11_PARSE(app, argc, argv);

  auto device = device::loadDevice(deviceId);
  if (!device) {
    fmt::print(stderr, "{}\n", device.errorText());
    return 1;
  }
  if (launchUs >= 0) device->launchOverheadUs = launchUs;
  if (barrierUs >= 0) device->barrierLatencyUs = barrierUs;
  auto model = std::make_shared<sim::AnalyticCostModel>(modelOptions);
  const sim::Simulator simulator(model);
  std::vector<Row> rows;
  for (const auto& name : samples) {
    auto optimized = bench::optimizedModel(fs::path(dir) / (name + ".onnx"), fuseAttention);
    if (!optimized) {
      fmt::print(stderr, "{}: {}\n", name, optimized.errorText());
      return 1;
    }
    const ir::Graph& graph = **optimized;
    for (const auto& pname : policies) {
      Row row;
      row.sample = name;
      row.policy = pname;
      auto policy = schedule::makePolicy(pname, sim::policyOptions(model));
      if (!policy) {
        fmt::print(stderr, "{}\n", policy.errorText());
        return 1;
      }
      std::vector<double> st, sc, sst, sct;
      std::optional<schedule::Plan> plan;
      for (int i = 0; i < std::max(repeat, 1); ++i) {
        const auto t0 = Clock::now();
        const double c0 = threadCpuSeconds();
        auto p = (*policy)->schedule(graph, *device, {});
        sc.push_back(threadCpuSeconds() - c0);
        st.push_back(seconds(t0));
        if (!p) {
          row.note = p.errorText();
          break;
        }
        plan = std::move(p).value();
      }
      if (!plan) {
        rows.push_back(row);
        continue;
      }
      // The GUI re-validates the whole plan after every edit.
      std::vector<double> vc;
      for (int i = 0; i < std::max(repeat, 1); ++i) {
        const double c0 = threadCpuSeconds();
        const schedule::ValidationReport report = schedule::checkPlan(*plan, graph);
        vc.push_back(threadCpuSeconds() - c0);
        if (!report.ok()) row.note = "invalid plan: " + report.problems.front().message;
      }
      row.validateCpuS = median(vc);
      std::optional<sim::Trace> trace;
      for (int i = 0; i < std::max(repeat, 1); ++i) {
        const auto t0 = Clock::now();
        const double c0 = threadCpuSeconds();
        auto t = simulator.run(*plan);
        sct.push_back(threadCpuSeconds() - c0);
        sst.push_back(seconds(t0));
        if (!t) {
          row.note = t.errorText();
          break;
        }
        trace = std::move(t).value();
      }
      row.scheduleS = median(st);
      row.scheduleCpuS = median(sc);
      row.simulateS = median(sst);
      row.simulateCpuS = median(sct);
      row.ops = plan->ops.size();
      row.programs = plan->programs.size();
      row.rtasks = plan->numRTasks();
      row.minVeusPerSM = 1 << 30;
      for (const auto& p : plan->programs) {
        row.barriers += p.program.numBarriers();
        row.minVeusPerSM = std::min(row.minVeusPerSM, p.veusPerSM);
        row.maxVeusPerSM = std::max(row.maxVeusPerSM, p.veusPerSM);
      }
      if (trace) {
        row.latencyUs = trace->totalUs;
        const double launch = model->launchOverheadUs(*device);
        for (const auto& p : trace->programs) row.hiddenLaunchUs += std::max(launch, p.endUs - p.startUs - launch);
        row.smEfficiency = trace->smEfficiency;
      }
      fmt::print(stderr, "{} {}: {} programs, {} rTasks, {:.1f} us predicted ({:.1f} ms to schedule)\n", name, pname,
                 row.programs, row.rtasks, row.latencyUs, row.scheduleS * 1e3);
      rows.push_back(row);
    }
  }

  fmt::print("device {} ({}), launch {} us, barrier {} us; {} (DRAM round trip {} cycles, {} B in flight per "
             "thread); times are medians of {} runs\n\n",
             device->id, device->name, device->launchOverheadUs, device->barrierLatencyUs, model->name(),
             modelOptions.memoryLatencyCycles, modelOptions.bytesInFlightPerThread, repeat);
  fmt::print("{:<16} {:<10} {:>5} {:>5} {:>8} {:>8} {:>7} {:>11} {:>7} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9}\n", "sample",
             "policy", "ops", "progs", "rTasks", "barriers", "vEU/SM", "predict us", "SM eff", "sched ms", "sched cpu",
             "sim ms", "sim cpu", "M rTasks/s", "valid cpu");
  for (const auto& r : rows) {
    if (!r.note.empty()) {
      fmt::print("{:<16} {:<10} failed: {}\n", r.sample, r.policy, r.note);
      continue;
    }
    const std::string veus = r.minVeusPerSM == r.maxVeusPerSM ? std::to_string(r.maxVeusPerSM)
                                                               : fmt::format("{}-{}", r.minVeusPerSM, r.maxVeusPerSM);
    fmt::print(
        "{:<16} {:<10} {:>5} {:>5} {:>8} {:>8} {:>7} {:>11.1f} {:>6.1f}% {:>9.1f} {:>9.1f} {:>9.2f} {:>9.2f} {:>10.2f} {:>9.1f}\n",
        r.sample, r.policy, r.ops, r.programs, r.rtasks, r.barriers, veus, r.latencyUs, 100 * r.smEfficiency,
        1e3 * r.scheduleS, 1e3 * r.scheduleCpuS, 1e3 * r.simulateS, 1e3 * r.simulateCpuS,
               r.simulateCpuS > 0 ? static_cast<double>(r.rtasks) / r.simulateCpuS / 1e6 : 0.0, 1e3 * r.validateCpuS);
  }
  fmt::print("sched ms / sched cpu: Policy::schedule, wall / thread CPU time; sim ms / sim cpu: Simulator::run;\n"
             "M rTasks/s: rTasks / sim cpu; valid cpu: checkPlan, thread CPU ms.\n"
             "predict us, SM eff: the analytic model's prediction.\n");

  fmt::print("\nRammerBase (sequential) / Rammer (wavefront): predicted on {}, us; paper: measured on V100\n",
             device->id);
  fmt::print("{:<16} {:>12} {:>12} {:>9} {:>17} {:>9}\n", "sample", "sequential", "wavefront", "ratio",
             "launches hidden", "paper");
  for (const auto& name : samples) {
    const Row *seq = nullptr, *wf = nullptr;
    for (const auto& r : rows) {
      if (r.sample != name || !r.note.empty()) continue;
      if (r.policy == "sequential") seq = &r;
      if (r.policy == "wavefront") wf = &r;
    }
    if (!seq || !wf || wf->latencyUs <= 0) continue;
    auto paper = kPaperRatio.find(name);
    fmt::print("{:<16} {:>12.1f} {:>12.1f} {:>8.2f}x {:>16.2f}x {:>9}\n", name, seq->latencyUs, wf->latencyUs,
               seq->latencyUs / wf->latencyUs, seq->hiddenLaunchUs / wf->hiddenLaunchUs,
               paper == kPaperRatio.end() ? std::string("-") : fmt::format("{:.2f}x", paper->second));
  }
  fmt::print("launches hidden: the same ratio if every launch overlapped the previous kernel's run (per program\n"
             "max(launch, run) instead of launch + run): a lower bound for RammerBase on a real GPU.\n");
  return 0;
}

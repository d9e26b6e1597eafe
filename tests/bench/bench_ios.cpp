// rammer-bench-ios: IOS's search against the sequential (RammerBase) and
// wavefront (Rammer) policies: IOS's scheduling time (search and plan),
// the DP's states and endings, and the analytic model's predicted latency
// of the three plans, per model and per IOS variant. Not a test: the
// numbers go to docs/PERFORMANCE.md (tests/bench/run_ios_bench.sh).
// Predictions are the analytic cost model's, not measurements.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <regex>
#include <vector>

#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/simulator.h"

#include "tests/bench/bench_models.h"
#include "tests/bench/bench_plans.h"

namespace fs = std::filesystem;
using namespace rammer;

int main(int argc, char** argv) {
  CLI::App app("Times IOS's search on the sample models against sequential and wavefront; prints a table");
  std::string dir;
  std::vector<std::string> samples = {"inception_v3", "nasnet_cifar", "squeezenet", "randwire", "lstm_tc"};
  std::vector<std::string> variants = {"parallel", "merge", "both"};
  schedule::IosOptions ios;
  std::string deviceId = "h100";
  app.add_option("--samples", dir, "Folder with the generated <sample>.onnx files")->required();
  app.add_option("--only", samples, "Samples to run")->delimiter(',')->capture_default_str();
  app.add_option("--variants", variants, "IOS variants")->delimiter(',')->capture_default_str();
  app.add_option("--ios-r", ios.maxGroupOps, "IOS: operators per group")->capture_default_str();
  app.add_option("--ios-s", ios.maxGroups, "IOS: groups per stage")->capture_default_str();
  app.add_option("--device", deviceId, "Device preset")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto device = device::loadDevice(deviceId);
  if (!device) {
    fmt::print(stderr, "{}\n", device.errorText());
    return 1;
  }
  auto model = std::make_shared<sim::AnalyticCostModel>();
  const sim::Simulator simulator(model);
  auto run = [&](const ir::Graph& g, const std::string& policy, const schedule::IosOptions& o) {
    schedule::PolicyOptions options = sim::policyOptions(model);
    options.ios = o;
    return bench::timedPlan(g, policy, options, *device, simulator);
  };

  fmt::print("IOS r={} s={} on {}, analytic cost model; time = IOS's scheduling (search and plan), one thread\n\n",
             ios.maxGroupOps, ios.maxGroups, device->id);
  fmt::print("| model | operators | variant | IOS time (s) | DP states | endings | stages (merged) | sequential (us) | "
             "wavefront (us) | IOS (us) | IOS vs sequential | IOS vs wavefront |\n");
  fmt::print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  const std::regex summary(R"(operators in \d+ block\(s\) of up to \d+, (\d+) stages \((\d+) merged\); DP (\d+) states, (\d+) endings)");
  for (const auto& name : samples) {
    auto optimized = bench::optimizedModel(fs::path(dir) / (name + ".onnx"));
    if (!optimized) {
      fmt::print(stderr, "{}: {}\n", name, optimized.errorText());
      return 1;
    }
    const ir::Graph& graph = **optimized;
    auto sequential = run(graph, "sequential", ios);
    auto wavefront = run(graph, "wavefront", ios);
    if (!sequential || !wavefront) {
      fmt::print(stderr, "{}: {}\n", name, (!sequential ? sequential : wavefront).errorText());
      return 1;
    }
    size_t ops = 0;
    for (const auto& op : sequential->plan.ops) ops += op.isView ? 0 : 1;
    for (const auto& variant : variants) {
      schedule::IosOptions o = ios;
      o.variant = variant;
      auto t = run(graph, "ios", o);
      if (!t) {
        fmt::print(stderr, "{} ({}): {}\n", name, variant, t.errorText());
        return 1;
      }
      std::smatch m;
      std::string stages = "?", merged = "?", states = "?", endings = "?";
      for (const auto& d : t->plan.decisions)
        if (std::regex_search(d, m, summary)) stages = m[1], merged = m[2], states = m[3], endings = m[4];
      fmt::print("| {} | {} | {} | {:.2f} | {} | {} | {} ({}) | {:.1f} | {:.1f} | {:.1f} | {:.2f}x | {:.2f}x |\n", name, ops,
                 variant, t->cpuS, states, endings, stages, merged, sequential->predictedUs, wavefront->predictedUs,
                 t->predictedUs, sequential->predictedUs / t->predictedUs, wavefront->predictedUs / t->predictedUs);
    }
  }
  return 0;
}

// rammer-bench-graphturbo: GraphTurbo's grouping against the sequential
// (RammerBase), wavefront (Rammer) and IOS policies: its scheduling time,
// the groups and instances it forms, and per policy the plan's predicted
// DRAM traffic and the analytic model's predicted latency. Not a test: the
// numbers go to docs/PERFORMANCE.md (tests/bench/run_graphturbo_bench.sh).
// Predictions are the analytic cost model's, not measurements.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <regex>
#include <vector>

#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "core/sim/plan_figures.h"
#include "core/sim/simulator.h"

#include "tests/bench/bench_models.h"
#include "tests/bench/bench_plans.h"

namespace fs = std::filesystem;
using namespace rammer;

int main(int argc, char** argv) {
  CLI::App app("Times GraphTurbo on the sample models against sequential, wavefront and IOS; prints a table");
  std::string dir;
  std::vector<std::string> samples = {"resnext29_cifar", "inception_v3", "nasnet_cifar", "lstm_tc"};
  std::string deviceId = "h100";
  schedule::GraphTurboOptions gt;
  app.add_option("--samples", dir, "Folder with the generated <sample>.onnx files")->required();
  app.add_option("--only", samples, "Samples to run")->delimiter(',')->capture_default_str();
  app.add_option("--device", deviceId, "Device preset")->capture_default_str();
  app.add_option("--gt-order", gt.order, "GraphTurbo's instance order (auto, bfs, dfs)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto device = device::loadDevice(deviceId);
  if (!device) {
    fmt::print(stderr, "{}\n", device.errorText());
    return 1;
  }
  auto model = std::make_shared<sim::AnalyticCostModel>();
  const sim::Simulator simulator(model);
  auto run = [&](const ir::Graph& g, const std::string& policy) {
    schedule::PolicyOptions options = sim::policyOptions(model);
    options.graphturbo = gt;
    return bench::timedPlan(g, policy, options, *device, simulator);
  };

  auto dramMB = [](const bench::TimedPlan& t) { return sim::figuresOf(t.plan).dramBytes / 1e6; };

  fmt::print("GraphTurbo (order {}) on {}, analytic cost model; time = scheduling, one thread; DRAM = the plan's "
             "predicted DRAM traffic\n\n",
             gt.order, device->id);
  fmt::print("| model | operators | GraphTurbo time (s) | groups (operators) | instances | order | DRAM MB seq / wave / IOS / GT | "
             "predicted us seq / wave / IOS / GT | GT vs wavefront |\n");
  fmt::print("|---|---:|---:|---:|---:|---|---:|---:|---:|\n");
  const std::regex summary(R"(order (\w+).*: (\d+) groups of (\d+) operators, (\d+) instances)");
  for (const auto& name : samples) {
    auto optimized = bench::optimizedModel(fs::path(dir) / (name + ".onnx"));
    if (!optimized) {
      fmt::print(stderr, "{}: {}\n", name, optimized.errorText());
      return 1;
    }
    const ir::Graph& graph = **optimized;
    std::vector<bench::TimedPlan> t;
    for (const char* policy : {"sequential", "wavefront", "ios", "graphturbo"}) {
      auto r = run(graph, policy);
      if (!r) {
        fmt::print(stderr, "{} ({}): {}\n", name, policy, r.errorText());
        return 1;
      }
      t.push_back(std::move(r).value());
    }
    size_t ops = 0;
    for (const auto& op : t[0].plan.ops) ops += op.isView ? 0 : 1;
    std::smatch m;
    std::string order = "?", groups = "?", grouped = "?", instances = "?";
    for (const auto& d : t[3].plan.decisions)
      if (std::regex_search(d, m, summary)) order = m[1], groups = m[2], grouped = m[3], instances = m[4];
    fmt::print("| {} | {} | {:.2f} | {} ({}) | {} | {} | {:.0f} / {:.0f} / {:.0f} / {:.0f} | {:.1f} / {:.1f} / {:.1f} / {:.1f} | "
               "{:.2f}x |\n",
               name, ops, t[3].cpuS, groups, grouped, instances, order, dramMB(t[0]), dramMB(t[1]), dramMB(t[2]), dramMB(t[3]),
               t[0].predictedUs, t[1].predictedUs, t[2].predictedUs, t[3].predictedUs, t[1].predictedUs / t[3].predictedUs);
  }
  return 0;
}

// One model on one backend, as the host-target benchmark measures it
// (tests/bench/run_host_bench.sh runs one process per model and backend, so
// each peak RSS is that backend's alone):
//   reference  the reference executor (the numerical ground truth)
//   emulator   the plan rTask by rTask with the rKernels' CPU tiles
//   host       the generated program on the CPU: build (from an empty
//              cache, so the compile is timed) and run as a child process
// Prints one JSON line: preparation, compile and run times (median of
// --repeat runs; the host's per-run time is the program's own mean), the
// peak RSS, and the outputs' relative L2 error against the reference.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "core/device/device_spec.h"
#include "core/exec/plan_emulator.h"
#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "core/runtime/host_execution.h"
#include "core/schedule/policy.h"
#include "core/sim/analytic_cost_model.h"
#include "tests/support/host_run.h"

using namespace rammer;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

long selfPeakRssKib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

[[noreturn]] void die(const std::string& what) {
  std::cerr << "rammer-bench-host: " << what << "\n";
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times one model on the reference executor, the emulator or the host target"};
  std::string model, backend = "host", policy = "wavefront", device = "h100", cache;
  int threads = 0, repeat = 3;
  app.add_option("MODEL", model)->required();
  app.add_option("--backend", backend)->check(CLI::IsMember({"reference", "emulator", "host"}));
  app.add_option("--policy", policy);
  app.add_option("--device", device);
  app.add_option("--threads", threads, "emulator and host workers (0: one per core)");
  app.add_option("--repeat", repeat)->check(CLI::PositiveNumber);
  app.add_option("--cache", cache, "host build cache (emptied first, so the compile is timed)")->required();
  CLI11_PARSE(app, argc, argv);

  // Import, passes and plan: the same for every backend.
  auto start = Clock::now();
  onnx_import::ImportOptions io;
  io.batch = 1;
  auto graph = onnx_import::importModel(model, io);
  if (!graph) die(graph.errorText());
  passes::PassContext ctx;
  if (auto r = passes::standardPipeline().run(*graph, ctx); !r) die(r.errorText());
  auto inputs = exec::makeRandomInputs(*graph, 1);
  if (!inputs) die(inputs.errorText());
  auto dev = device::loadDevice(device);
  if (!dev) die(dev.errorText());
  auto pol = schedule::makePolicy(policy, sim::policyOptions(std::make_shared<sim::AnalyticCostModel>()));
  if (!pol) die(pol.errorText());
  auto plan = (*pol)->schedule(*graph, *dev, {});
  if (!plan) die(plan.errorText());
  const double prepSeconds = since(start);
  auto want = exec::runReference(*graph, *inputs);
  if (!want) die(want.errorText());

  std::vector<double> runMs;
  double compileSeconds = 0, commonSeconds = 0, error = 0;
  long rssKib = 0;
  if (backend == "reference") {
    for (int i = 0; i < repeat; ++i) {
      start = Clock::now();
      auto out = exec::runReference(*graph, *inputs);
      runMs.push_back(1e3 * since(start));
    }
    rssKib = selfPeakRssKib();
  } else if (backend == "emulator") {
    exec::EmulatorOptions eo;
    eo.threads = threads;
    for (int i = 0; i < repeat; ++i) {
      auto out = exec::emulatePlan(*plan, *graph, *inputs, eo);
      if (!out) die(out.errorText());
      runMs.push_back(1e3 * out->seconds);
      error = testing::worstRelativeL2(out->outputs, *want);
    }
    rssKib = selfPeakRssKib();
  } else {
    std::filesystem::remove_all(cache);
    runtime::HostExecutionOptions ho;
    ho.build.cacheDir = cache;
    ho.workers = threads;
    // The harness and runtime objects are compiled once per cache: the
    // first build pays for them, a second one of the same plan (its own
    // folder removed) for the model's kernels alone.
    auto first = runtime::buildHostPlan(*plan, *graph, ho);
    if (!first) die(first.errorText());
    std::filesystem::remove_all(first->build.directory);
    auto built = runtime::buildHostPlan(*plan, *graph, ho);
    if (!built) die(built.errorText());
    compileSeconds = built->build.compileSeconds;
    commonSeconds = first->build.compileSeconds - compileSeconds;
    ho.repeat = repeat;
    auto run = runtime::runHostProgram(*built, *plan, *graph, *inputs, ho);
    if (!run) die(run.errorText());
    runMs.push_back(run->meanRunMs);
    rssKib = static_cast<long>(run->peakRssKib);
    error = testing::worstRelativeL2(run->outputs, *want);
  }
  fmt::print(
      "{{\"model\": \"{}\", \"backend\": \"{}\", \"policy\": \"{}\", \"device\": \"{}\", \"rtasks\": {}, \"programs\": {}, "
      "\"prep_s\": {:.3f}, \"compile_s\": {:.2f}, \"runtime_compile_s\": {:.2f}, \"run_ms\": {:.2f}, \"peak_rss_mib\": {:.0f}, \"rel_l2\": {:.2e}}}\n",
      std::filesystem::path(model).stem().string(), backend, policy, device, plan->numRTasks(), plan->programs.size(),
      prepSeconds, compileSeconds, commonSeconds, median(runMs), static_cast<double>(rssKib) / 1024.0, error);
  return 0;
}

// Rammer's robustness study at its scale (issue #30 item 7): random
// NAS-Bench-101 cells (samples/zoo/nasbench_dag.h), each as a small model
// (stem, cell, pool, classifier), through every policy on the CPU emulator,
// and a share of them as generated code on the host target (a rotating
// policy per cell; some under ThreadSanitizer). Each run goes through the
// pipeline's Run stage, whose output check compares it with the reference
// executor on the imported graph. Counts plans, matches, mismatches and
// failures (a deadlock, a refused plan, a crash) per policy and prints the
// table for docs/RELIABILITY.md. Exits 1 on any mismatch or failure.
// --claim-shards runs the dynamic policy's host programs with claim shards
// (per-SM queues with stealing), the one place they change what runs.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/onnx/exporter.h"
#include "core/passes/pass_manager.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"
#include "samples/builder/weight_rng.h"
#include "samples/zoo/nasbench_cells.h"

using namespace rammer;

namespace {

struct Tally {
  int runs = 0, matched = 0, mismatched = 0, failed = 0;
  double seconds = 0;
  std::vector<std::string> firstProblems;
};

// Returns whether the run matched the reference.
bool record(Tally& t, const pipeline::StagesResult& r, double seconds, const std::string& what) {
  ++t.runs;
  t.seconds += seconds;
  const bool ran = r.report.ok() && r.artifacts.run && r.artifacts.run->check;
  if (ran && r.artifacts.run->check->match) {
    ++t.matched;
    return true;
  }
  if (ran) ++t.mismatched;
  else ++t.failed;
  if (t.firstProblems.size() < 5)
    t.firstProblems.push_back(what + ": " + (ran ? "outputs differ" : ir::formatDiagnostics(r.report.errors())));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Random NAS-Bench cells through every policy on the emulator and the host target"};
  int cells = 5000, hostCells = 500, tsanCells = 50, channels = 16, size = 8;
  uint32_t seed = 1;
  std::string cache, tsanDevice = "h100", failingDir;
  int claimShards = 1;
  app.add_option("--cells", cells, "Cells on the emulator, every policy")->capture_default_str();
  app.add_option("--host", hostCells, "Of them, cells also run as generated code on the host")->capture_default_str();
  app.add_option("--tsan", tsanCells, "Of those, cells built with ThreadSanitizer")->capture_default_str();
  app.add_option("--channels", channels, "Channels of the stem and the cell")->capture_default_str();
  app.add_option("--size", size, "Input height and width")->capture_default_str();
  app.add_option("--seed", seed, "First cell's seed (cell k uses seed + k)")->capture_default_str();
  app.add_option("--cache", cache, "Build cache of the host target (default: rammer's)");
  app.add_option("--tsan-device", tsanDevice,
                 "Device the ThreadSanitizer runs plan for (one TSan fiber per CUDA thread of a vEU in an rTask; "
                 "a worker retires the least recently used vEUs' fibers to stay under TSan's 8128)")
      ->capture_default_str();
  app.add_option("--write-failing", failingDir,
                 "Folder to write each cell with a mismatch or failure to, as cell_K.onnx (rammer run reproduces it)");
  app.add_option("--claim-shards", claimShards,
                 "Claim shards of the dynamic policy's host runs (a claim_shards edit per program; 0: one per vEU)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  const std::vector<std::string> policies = schedule::policyNames();
  std::map<std::string, Tally> emulator, host, tsan;
  int vertices = 0, edges = 0;
  int shardedPrograms = 0, fewestShards = 0, mostShards = 0;  // host programs run with claim shards
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < cells; ++k) {
    samples::WeightRng rng(seed + static_cast<uint32_t>(k));
    const samples::NasBenchCell cell = samples::randomNasBenchCell(rng);
    vertices += cell.vertices();
    edges += cell.edges();
    pipeline::Artifacts given;
    given.original =
        std::make_shared<const ir::Graph>(samples::buildNasBenchCell(cell, seed + static_cast<uint32_t>(k), channels, size));
    bool cellClean = true;
    for (size_t p = 0; p < policies.size(); ++p) {
      const std::string& policy = policies[p];
      auto runOn = [&](pipeline::RunTarget target, bool threadSanitizer, const schedule::Constraints& edits = {}) {
        pipeline::Options o;
        o.constraints = edits;
        o.policy = schedule::parsePolicy(policy).value();
        o.run.target = target;
        o.run.emulator.trace = false;
        o.run.host.repeat = 1;
        o.run.host.measureTrace = false;
        o.run.host.build.threadSanitizer = threadSanitizer;
        if (threadSanitizer) o.device = tsanDevice;
        if (!cache.empty()) o.run.host.build.cacheDir = cache;
        const auto t0 = std::chrono::steady_clock::now();
        pipeline::StagesResult r = pipeline::runStages(o, given, pipeline::Stage::Optimize, pipeline::Stage::Run);
        return std::make_pair(std::move(r), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      };
      const std::string what = fmt::format("cell {} ({} vertices, {} edges) {}", k, cell.vertices(), cell.edges(), policy);
      auto [r, s] = runOn(pipeline::RunTarget::Emulator, false);
      cellClean = record(emulator[policy], r, s, what) && cellClean;
      // The host target: one policy per cell, in turn.
      if (k < hostCells && static_cast<size_t>(k) % policies.size() == p) {
        const bool sanitized = k < tsanCells;
        // The dynamic policy's claim shards: an edit naming each program's
        // first operator in the emulator run's plan (the same graph and plan).
        schedule::Constraints edits;
        if (policy == "dynamic" && claimShards != 1 && r.artifacts.plan)
          for (const schedule::ProgramInfo& info : r.artifacts.plan->programs)
            if (info.dynamic && !info.dynamic->ops.empty()) {
              const int veus = info.program.numVEUs();
              edits.claimShardsFor[r.artifacts.plan->ops[static_cast<size_t>(info.dynamic->ops.front().op)].name] =
                  claimShards == 0 ? veus : std::min(claimShards, veus);
            }
        auto [h, hs] = runOn(pipeline::RunTarget::Host, sanitized, edits);
        if (h.artifacts.plan)
          for (const schedule::ProgramInfo& info : h.artifacts.plan->programs)
            if (info.dynamic && info.dynamic->claimShards > 1) {
              const int k = info.dynamic->claimShards;
              fewestShards = shardedPrograms++ == 0 ? k : std::min(fewestShards, k);
              mostShards = std::max(mostShards, k);
            }
        cellClean =
            record((sanitized ? tsan : host)[policy], h, hs, what + (sanitized ? " (host, TSan)" : " (host)")) &&
            cellClean;
      }
    }
    if (!cellClean && !failingDir.empty()) {
      std::filesystem::create_directories(failingDir);
      const auto file = std::filesystem::path(failingDir) / fmt::format("cell_{}.onnx", k);
      for (const ir::Diagnostic& d : onnx_export::exportModel(*given.original, file))
        fmt::print(stderr, "  writing {}: {}\n", file.string(), d.message);
    }
    if ((k + 1) % 250 == 0)
      fmt::print(stderr, "{} cells, {:.0f} s\n", k + 1,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }

  bool clean = true;
  fmt::print("{} random NAS-Bench cells (seeds {}..{}, {:.1f} vertices and {:.1f} edges on average), "
             "{} channels, {}x{} input\n\n",
             cells, seed, seed + static_cast<uint32_t>(cells) - 1, static_cast<double>(vertices) / cells,
             static_cast<double>(edges) / cells, channels, size, size);
  if (shardedPrograms > 0)
    fmt::print("{} dynamic host programs ran with {} to {} claim shards\n\n", shardedPrograms, fewestShards, mostShards);
  fmt::print("| backend | policy | runs | outputs match | mismatches | failures (deadlock, refusal, crash) | s per run |\n");
  fmt::print("|---|---|---|---|---|---|---|\n");
  for (const auto& [label, table] : {std::pair<const char*, std::map<std::string, Tally>*>{"emulator", &emulator},
                                     {"host", &host}, {"host + TSan", &tsan}})
    for (const std::string& policy : policies) {
      const Tally& t = (*table)[policy];
      if (t.runs == 0) continue;
      clean = clean && t.mismatched == 0 && t.failed == 0;
      fmt::print("| {} | {} | {} | {} | {} | {} | {:.3f} |\n", label, policy, t.runs, t.matched, t.mismatched,
                 t.failed, t.seconds / t.runs);
      for (const std::string& p : t.firstProblems) fmt::print(stderr, "  {}\n", p);
    }
  fmt::print("\n{}: {:.0f} s\n", clean ? "no mismatch, no failure" : "PROBLEMS (listed on stderr)",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return clean ? 0 : 1;
}

// rammer-bench-import-run: times the foundation on real models - import
// (parse + graph build, then type inference) and a reference run - and prints
// the medians as a table. Not a test: the numbers go to docs/PERFORMANCE.md.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "core/exec/random_inputs.h"
#include "core/exec/reference_executor.h"
#include "core/onnx/importer.h"
#include "core/onnx/tensor_file.h"
#include "core/ops/model_summary.h"
#include "core/ops/type_inference.h"

namespace fs = std::filesystem;
using namespace rammer;

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

struct Row {
  std::string name;
  double fileMB = 0;
  size_t nodes = 0;
  int64_t params = 0;
  double gflop = 0;
  double buildS = 0;  // parse + graph build (inferTypes off)
  double inferS = 0;  // type inference alone
  double importS = 0; // the whole importModel() call
  double runS = -1;   // -1: not run
  std::string note;
};

// A model given as a file, or as a folder holding model.onnx (+ test_data_set_0/).
struct ModelPaths {
  fs::path model;
  fs::path inputs;  // empty when none
};

ModelPaths resolve(const fs::path& p) {
  if (fs::is_directory(p)) {
    fs::path data = p / "test_data_set_0";
    return {p / "model.onnx", fs::is_directory(data) ? data : fs::path()};
  }
  fs::path data = p.parent_path() / "test_data_set_0";
  return {p, fs::is_directory(data) ? data : fs::path()};
}

// The folder's name for a folder ("resnet18/"), else the file's stem.
std::string displayName(const fs::path& arg, const ModelPaths& m) {
  if (!fs::is_directory(arg)) return m.model.stem().string();
  fs::path p = fs::absolute(arg).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // trailing slash
  return p.filename().string();
}

Row bench(const fs::path& arg, int repeat, int runs) {
  ModelPaths paths = resolve(arg);
  Row row;
  row.name = displayName(arg, paths);
  std::error_code ec;
  row.fileMB = static_cast<double>(fs::file_size(paths.model, ec)) / 1e6;
  if (ec) {
    row.note = "cannot read " + paths.model.string();
    return row;
  }

  // Each graph is dropped before the next import so that one import never
  // pays for another's memory.
  std::vector<double> build, infer, whole;
  for (int i = 0; i < repeat; ++i) {
    {
      auto t0 = Clock::now();
      auto full = onnx_import::importModel(paths.model);
      whole.push_back(seconds(t0));
      if (!full) {
        row.note = full.errors().front().message;
        return row;
      }
    }
    onnx_import::ImportOptions noInfer;
    noInfer.inferTypes = false;
    auto t0 = Clock::now();
    auto graph = onnx_import::importModel(paths.model, noInfer);
    build.push_back(seconds(t0));
    t0 = Clock::now();
    auto errs = ops::inferTypes(*graph);
    infer.push_back(seconds(t0));
  }
  row.buildS = median(build);
  row.inferS = median(infer);
  row.importS = median(whole);

  // The graph to run: with the shapes of the given inputs bound, else seeded
  // random inputs for its declared shapes.
  std::vector<ir::Tensor> inputs;
  onnx_import::ImportOptions options;
  if (!paths.inputs.empty()) {
    auto named = onnx_import::readTensorDir(paths.inputs);
    if (!named) {
      row.note = named.errorText();
      return row;
    }
    onnx_import::ImportOptions noInfer;
    noInfer.inferTypes = false;
    auto declared = onnx_import::importModel(paths.model, noInfer);
    if (!declared) {
      row.note = declared.errorText();
      return row;
    }
    for (size_t i = 0; i < named->size() && i < declared->inputs().size(); ++i)
      options.inputShapes[declared->value(declared->inputs()[i]).name] = (*named)[i].tensor.shape();
    for (auto& n : *named) inputs.push_back(std::move(n.tensor));
  }
  auto graph = onnx_import::importModel(paths.model, options);
  if (!graph) {
    row.note = graph.errors().front().message;
    return row;
  }
  ops::ModelSummary summary = ops::summarize(*graph);
  row.nodes = summary.nodeCount;
  row.params = summary.parameterCount;
  row.gflop = summary.flops / 1e9;
  if (paths.inputs.empty()) {
    auto random = exec::makeRandomInputs(*graph, 1);
    if (!random) {
      row.note = random.errorText();
      return row;
    }
    inputs = std::move(random).value();
  }
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    auto out = exec::runReference(*graph, inputs);
    times.push_back(seconds(t0));
    if (!out) {
      row.note = out.errors().front().message;
      return row;
    }
  }
  if (!times.empty()) row.runS = median(times);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Times import (+ type inference) and a reference run of ONNX models (medians)",
               "rammer-bench-import-run");
  std::vector<std::string> models;
  int repeat = 5;
  int runs = 3;
  app.add_option("MODELS", models, "model.onnx files or folders with model.onnx (+ test_data_set_0/)")->required();
  app.add_option("--repeat", repeat, "Imports per model")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--runs", runs, "Reference runs per model (0: none)")->capture_default_str()->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  fmt::print("{:<16} {:>9} {:>6} {:>8} {:>8} {:>10} {:>9} {:>10} {:>10} {:>8}\n", "model", "file MB", "nodes",
             "params M", "GFLOP", "build ms", "infer ms", "import ms", "run ms", "GFLOP/s");
  int failures = 0;
  for (const auto& m : models) {
    Row r = bench(m, repeat, runs);
    if (!r.note.empty()) {
      fmt::print("{:<16} error: {}\n", r.name, r.note);
      ++failures;
      continue;
    }
    const std::string run = r.runS >= 0 ? fmt::format("{:.1f}", r.runS * 1e3) : "-";
    const std::string rate = r.runS > 0 ? fmt::format("{:.1f}", r.gflop / r.runS) : "-";
    fmt::print("{:<16} {:>9.1f} {:>6} {:>8.2f} {:>8.3f} {:>10.1f} {:>9.1f} {:>10.1f} {:>10} {:>8}\n", r.name,
               r.fileMB, r.nodes, static_cast<double>(r.params) / 1e6, r.gflop, r.buildS * 1e3, r.inferS * 1e3,
               r.importS * 1e3, run, rate);
    std::fflush(stdout);
  }
  fmt::print("medians of {} imports and {} runs per model\n", repeat, runs);
  return failures ? 1 : 0;
}

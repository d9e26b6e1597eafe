// rammer-bench-graph-layout: how long the graph view's Graphviz dot layout
// takes on each optimized sample model and on a synthetic 2,000-operator
// wavefront grid (the shape of unrolled stacked LSTMs). Box sizes are
// estimated from the text (the view measures fonts; the difference does not
// change the layout's cost). Not a test: the numbers go to
// docs/PERFORMANCE.md.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <vector>

#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "viz/models/graph_display.h"
#include "viz/models/graph_layout.h"

namespace fs = std::filesystem;
using namespace rammer;

namespace {

using Clock = std::chrono::steady_clock;

viz::LayoutSize estimateSize(const viz::DisplayNode& n) {
  const size_t chars = std::max(n.title.size(), n.name.size());
  return {std::clamp(7.0 * static_cast<double>(chars) + 16, 72.0, 240.0), 34};
}

ir::Graph grid(int rows, int cols) {
  ir::Graph g;
  const ir::TensorType t{ir::DType::Float32, {1, 16}, true};
  const ir::ValueId in = g.addValue("in", t);
  g.addInput(in);
  std::vector<ir::ValueId> prevRow(static_cast<size_t>(cols), in);
  for (int r = 0; r < rows; ++r) {
    ir::ValueId left = in;
    for (int c = 0; c < cols; ++c) {
      ir::Node n;
      n.opType = "Add";
      n.name = fmt::format("cell_{}_{}", r, c);
      n.inputs = {left, prevRow[static_cast<size_t>(c)]};
      const ir::ValueId out = g.addValue(n.name, t);
      n.outputs = {out};
      g.addNode(std::move(n));
      left = prevRow[static_cast<size_t>(c)] = out;
    }
  }
  g.addOutput(prevRow.back());
  return g;
}

// The request as a DOT file, to study a slow layout with `dot -v`.
void writeDot(const fs::path& file, const viz::LayoutRequest& req) {
  std::FILE* f = std::fopen(file.c_str(), "w");
  if (!f) return;
  fmt::print(f, "digraph g {{\n  ranksep={}; nodesep={};\n  node [shape=box fixedsize=true label=\"\"];\n",
             req.rankSep / 72, req.nodeSep / 72);
  for (size_t i = 0; i < req.nodes.size(); ++i)
    fmt::print(f, "  n{} [width={:.3f} height={:.3f}];\n", i, req.nodes[i].width / 72, req.nodes[i].height / 72);
  for (auto [a, b] : req.edges) fmt::print(f, "  n{} -> n{};\n", a, b);
  fmt::print(f, "}}\n");
  std::fclose(f);
}

void timeLayout(const std::string& name, const ir::Graph& g, int repeat, const std::string& dotDir) {
  const viz::GraphDisplay d = viz::buildGraphDisplay(g);
  const viz::LayoutRequest req = viz::makeLayoutRequest(d, estimateSize);
  if (!dotDir.empty()) writeDot(fs::path(dotDir) / (name.substr(0, name.find(' ')) + ".dot"), req);
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto start = Clock::now();
    auto layout = viz::computeGraphLayout(req);
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    if (!layout.ok()) {
      fmt::print("| {} | {} | {} | failed: {} |\n", name, req.nodes.size(), req.edges.size(), layout.errorText());
      return;
    }
  }
  std::sort(times.begin(), times.end());
  fmt::print("| {} | {} | {} | {:.2f} |\n", name, req.nodes.size(), req.edges.size(), times[times.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Times the graph view's dot layout on the optimized samples and a 2,000-operator grid");
  std::string dir = RAMMER_BINARY_DIR "/samples";
  std::vector<std::string> samples = {"alexnet", "resnext29_cifar", "nasnet_cifar", "deepspeech2",
                                      "lstm_tc", "seq2seq",         "inception_block", "nasbench_cells"};
  int repeat = 3;
  std::string dotDir;
  bool skipGrid = false;
  app.add_option("--dir", dir, "Folder with the sample .onnx files");
  app.add_option("--samples", samples, "Sample names");
  app.add_option("--repeat", repeat, "Runs per graph (the median is printed)")->check(CLI::PositiveNumber);
  app.add_option("--write-dot", dotDir, "Also write each layout request as DOT into this folder");
  app.add_flag("--no-grid", skipGrid, "Skip the synthetic grid");
  CLI11_PARSE(app, argc, argv);

  fmt::print("| graph | boxes | edges | layout s (median of {}) |\n|---|---:|---:|---:|\n", repeat);
  if (!skipGrid) timeLayout("grid 50x40 (synthetic)", grid(50, 40), repeat, dotDir);
  for (const std::string& s : samples) {
    const fs::path file = fs::path(dir) / (s + ".onnx");
    onnx_import::ImportOptions options;
    options.batch = 1;
    auto g = onnx_import::importModel(file, options);
    if (!g.ok()) {
      fmt::print("| {} | | | import failed: {} |\n", s, g.errorText());
      continue;
    }
    passes::PassContext ctx;
    auto run = passes::standardPipeline().run(*g, ctx);
    if (!run.ok()) {
      fmt::print("| {} | | | passes failed: {} |\n", s, run.errorText());
      continue;
    }
    timeLayout(s + " (optimized)", *g, repeat, dotDir);
  }
  return 0;
}

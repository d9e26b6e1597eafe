// rammer info MODEL [--json] [--batch N]: what a model is made of and costs.
#include <fmt/core.h>

#include <algorithm>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/json_output.h"
#include "app/cli/model_loading.h"
#include "core/ops/model_summary.h"

namespace rammer::cli {

namespace {

struct InfoOptions {
  std::string model;
  bool json = false;
  int64_t batch = 0;  // 0: not given
};

void printValues(const char* title, const std::vector<ops::ValueSummary>& values) {
  fmt::print("{}\n", title);
  size_t width = 0;
  for (const auto& v : values) width = std::max(width, v.name.size());
  for (const auto& v : values)
    fmt::print("  {:<{}}  {} {}\n", v.name, width, ir::dtypeName(v.type.dtype), shapeText(v.type, v.dimParams));
}

void printCounts(const char* title, const std::vector<std::pair<std::string, int64_t>>& counts) {
  fmt::print("{}\n", title);
  size_t width = 0;
  for (const auto& [name, n] : counts) width = std::max(width, name.size());
  for (const auto& [name, n] : counts) fmt::print("  {:<{}}  {}\n", name, width, n);
}

void printSummary(const ops::ModelSummary& s, const std::string& model) {
  fmt::print("model       {}\n", model);
  if (!s.name.empty()) fmt::print("graph       {}\n", s.name);
  fmt::print("opset       {}\n", s.opset);
  fmt::print("nodes       {}\n", s.nodeCount);
  fmt::print("parameters  {} ({})\n", ops::formatCount(s.parameterCount), ops::formatBytes(s.parameterBytes));
  if (s.flopsUnknownNodes == 0)
    fmt::print("flops       {}\n", ops::formatFlops(s.flops));
  else
    fmt::print("flops       {} ({} nodes not counted: unknown shapes or unsupported ops)\n",
               ops::formatFlops(s.flops), s.flopsUnknownNodes);
  printValues("inputs", s.inputs);
  printValues("outputs", s.outputs);
  printCounts("ops", s.opHistogram);
  printCounts("categories", s.categoryCounts);
}

int runInfo(const InfoOptions& o, const GlobalOptions& global) {
  Progress progress(global);
  onnx_import::ImportOptions options;
  if (o.batch > 0) options.batch = o.batch;
  ir::Graph graph = loadModel(o.model, options, progress);
  ops::ModelSummary summary = ops::summarize(graph);
  if (o.json)
    fmt::print("{}\n", summaryToJson(summary, o.model).dump(2));
  else
    printSummary(summary, o.model);
  return 0;
}

}  // namespace

Command addInfoCommand(CLI::App& app, const GlobalOptions& global) {
  auto opts = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand("info", "Show a model's inputs, outputs, operators, parameters and FLOPs");
  sub->add_option("MODEL", opts->model, "ONNX model file")->required();
  sub->add_flag("--json", opts->json, "Print one JSON object instead of text");
  sub->add_option("--batch", opts->batch, "Bind symbolic leading dims of the inputs to N")->check(CLI::PositiveNumber);
  return Command{sub, [opts, &global] { return runInfo(*opts, global); }};
}

}  // namespace rammer::cli

// rammer-samples: writes the sample models of the Rammer evaluation (plus an
// Inception block, random NAS-Bench cells, Inception-V3, SqueezeNet and
// RandWire) as ONNX files with seeded weights. Same options => byte-identical
// files.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/ir/diagnostic.h"
#include "samples/zoo/sample_catalog.h"
#include "samples/zoo/sample_writer.h"

namespace rs = rammer::samples;

namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes the sample models (seeded random weights) as OUTDIR/<name>.onnx"};
  std::string outDir, only;
  rs::WriteOptions opt;
  int64_t maxBytes = 0;
  bool list = false;
  app.add_option("outdir", outDir, "Folder for the .onnx files (created if missing)");
  app.add_option("--batch", opt.config.batch, "Batch size written into the models")->check(CLI::Range(1, 65536));
  app.add_option("--seed", opt.config.seed, "Seed of the random weights");
  app.add_option("--only", only, "Comma-separated model names (default: all but the transformers, see --list)");
  app.add_option("--nasbench-cells", opt.config.nasbenchCells, "Cells in nasbench_cells")->check(CLI::Range(1, 64));
  app.add_option("--randwire-nodes", opt.config.randwireNodes, "Nodes per random stage of randwire (paper: 32)")
      ->check(CLI::Range(5, 256));
  app.add_option("--transformer-layers", opt.config.transformerLayers, "Layers of bert_base, gpt2_small and vit_b16")
      ->check(CLI::Range(1, 48));
  app.add_flag("--symbolic-batch", opt.symbolicBatch, "Write the batch dim as the symbol 'batch'");
  app.add_option("--max-weight-bytes", maxBytes, "Refuse models with more weight bytes than this")
      ->check(CLI::PositiveNumber);
  app.add_flag("--list", list, "List the models and exit");
  CLI11_PARSE(app, argc, argv);

  const std::vector<rs::SampleModel> catalog = rs::sampleCatalog();
  if (list) {
    for (const auto& m : catalog)
      std::printf("%-16s %s%s\n", m.name.c_str(), m.description.c_str(), m.onDemand ? " (only with --only)" : "");
    return 0;
  }
  if (outDir.empty()) {
    std::fprintf(stderr, "rammer-samples: an output folder is required (see --help)\n");
    return 2;
  }
  if (maxBytes > 0) opt.maxWeightBytes = maxBytes;

  std::vector<const rs::SampleModel*> chosen;
  if (only.empty()) {
    for (const auto& m : catalog)
      if (!m.onDemand) chosen.push_back(&m);
  } else {
    for (const std::string& name : splitList(only)) {
      const rs::SampleModel* m = rs::findSample(catalog, name);
      if (!m) {
        std::string names;
        for (const auto& c : catalog) names += (names.empty() ? "" : ", ") + c.name;
        std::fprintf(stderr, "rammer-samples: unknown model '%s' (models: %s)\n", name.c_str(), names.c_str());
        return 2;
      }
      chosen.push_back(m);
    }
  }

  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  if (ec) {
    std::fprintf(stderr, "rammer-samples: cannot create '%s': %s\n", outDir.c_str(), ec.message().c_str());
    return 1;
  }
  int failures = 0;
  for (const rs::SampleModel* m : chosen) {
    auto written = rs::writeSample(*m, outDir, opt);
    if (!written) {
      std::fprintf(stderr, "rammer-samples: %s: %s\n", m->name.c_str(), written.errorText().c_str());
      ++failures;
      continue;
    }
    std::printf("%s\n", rs::summaryLine(*written, m->publishedParams).c_str());
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}

// Seeds: the same seed gives the same bytes, another seed other weights in
// the same structure. The symbolic-batch form binds again at import, and the
// models committed under samples/models are what the generator writes.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/onnx/exporter.h"
#include "core/onnx/importer.h"
#include "samples/zoo/sample_catalog.h"
#include "samples/zoo/sample_writer.h"
#include "tests/samples/graph_compare.h"

namespace rammer {
namespace {

namespace fs = std::filesystem;

std::string exportOf(const std::string& name, const samples::SampleConfig& config, bool symbolic = false) {
  const auto catalog = samples::sampleCatalog();
  const ir::Graph g = samples::findSample(catalog, name)->build(config);
  auto bytes = onnx_export::exportModelToBytes(g, samples::sampleExportOptions(symbolic));
  EXPECT_TRUE(bytes.ok()) << bytes.errorText();
  return bytes.ok() ? *bytes : std::string();
}

const char* const kSmall[] = {"inception_block", "nasbench_cells", "seq2seq", "deepspeech2", "lstm_tc",
                              "squeezenet", "randwire"};

TEST(SampleSeeds, SameSeedGivesIdenticalBytes) {
  samples::SampleConfig config;
  config.seed = 7;
  for (const char* name : kSmall) EXPECT_TRUE(exportOf(name, config) == exportOf(name, config)) << name;
}

TEST(SampleSeeds, OtherSeedGivesOtherWeightsInTheSameStructure) {
  samples::SampleConfig one, two;
  two.seed = 2;
  // randwire: its random wiring comes from a fixed seed, so only the weights change.
  for (const char* name : {"inception_block", "seq2seq", "deepspeech2", "randwire"}) {
    const auto catalog = samples::sampleCatalog();
    const ir::Graph a = samples::findSample(catalog, name)->build(one);
    const ir::Graph b = samples::findSample(catalog, name)->build(two);
    ASSERT_EQ(a.numValues(), b.numValues()) << name;
    int weights = 0, differing = 0;
    for (size_t i = 0; i < a.numValues(); ++i) {
      const ir::Value& va = a.value(static_cast<ir::ValueId>(i));
      const ir::Value& vb = b.value(static_cast<ir::ValueId>(i));
      ASSERT_EQ(va.name, vb.name);
      EXPECT_EQ(va.type, vb.type) << va.name;
      if (!va.constant || va.constant->dtype() != ir::DType::Float32) continue;
      ++weights;
      differing += samples_test::sameTensor(*va.constant, *vb.constant) ? 0 : 1;
    }
    EXPECT_GT(weights, 0);
    EXPECT_EQ(differing, weights) << name << ": every weight tensor changes with the seed";
  }
  EXPECT_NE(exportOf("inception_block", one), exportOf("inception_block", two));
}

TEST(SampleSeeds, SymbolicBatchBindsAgainAtImport) {
  samples::SampleConfig config;
  for (const char* name : {"inception_block", "nasbench_cells", "nasnet_cifar", "squeezenet", "randwire"}) {
    const std::string bytes = exportOf(name, config, /*symbolic=*/true);
    onnx_import::ImportOptions opt;
    opt.batch = 2;
    auto g = onnx_import::importModelFromBytes(bytes, {}, name, opt);
    ASSERT_TRUE(g.ok()) << g.errorText();
    const ir::Value& in = g->value(g->inputs()[0]);
    EXPECT_EQ(in.type.shape[0], 2) << name;
    EXPECT_EQ(in.dimParams[0], "batch") << name;
    EXPECT_EQ(g->value(g->outputs()[0]).type.shape[0], 2) << name;
  }
  // Sequence-first models have the batch in dim 1: bound by input shapes,
  // the symbol carries to the output.
  const std::string bytes = exportOf("seq2seq", config, /*symbolic=*/true);
  onnx_import::ImportOptions opt;
  opt.inputShapes = {{"encoder_input", {100, 3, 128}}, {"decoder_input", {30, 3, 128}}};
  auto g = onnx_import::importModelFromBytes(bytes, {}, "seq2seq", opt);
  ASSERT_TRUE(g.ok()) << g.errorText();
  const ir::Value& out = g->value(g->outputs()[0]);
  EXPECT_EQ(out.type.shape, (ir::Shape{30, 3, 128}));
  EXPECT_EQ(out.dimParams, (std::vector<std::string>{"", "batch", ""}));
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// samples/update_committed.sh writes these; a generator change that alters
// them must come with re-running it.
TEST(CommittedSamples, AreWhatTheGeneratorWrites) {
  const fs::path dir = fs::path(RAMMER_SOURCE_DIR) / "samples" / "models";
  samples::SampleConfig config;
  config.nasbenchCells = 4;
  for (const char* name : {"inception_block", "nasbench_cells"}) {
    const fs::path file = dir / (std::string(name) + ".onnx");
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_LT(fs::file_size(file), 2'000'000u) << file;
    EXPECT_TRUE(readFile(file) == exportOf(name, config)) << file << " is stale: run samples/update_committed.sh";
  }
}

}  // namespace
}  // namespace rammer

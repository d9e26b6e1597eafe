// The models the build writes (seed 1, batch 1): each imports and
// type-infers with the project's importer into the graph the generator
// built, is byte for byte what a fresh generation gives, and the small ones
// run through the reference executor with the same outputs before and after
// the file.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "core/exec/reference_executor.h"
#include "core/onnx/exporter.h"
#include "core/onnx/importer.h"
#include "samples/zoo/sample_catalog.h"
#include "samples/zoo/sample_writer.h"
#include "tests/samples/graph_compare.h"
#include "tests/samples/sample_helpers.h"

namespace rammer {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = RAMMER_SAMPLES_DIR;

std::vector<std::string> sampleNames() { return samples_test::buildSampleNames(); }

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const samples::SampleModel& sample(const std::string& name) {
  static const std::vector<samples::SampleModel> catalog = samples::sampleCatalog();
  const samples::SampleModel* m = samples::findSample(catalog, name);
  if (!m) throw std::runtime_error("no sample " + name);
  return *m;
}

class SampleFile : public ::testing::TestWithParam<std::string> {};

TEST_P(SampleFile, ImportsIntoTheGeneratedGraphAndIsReproducible) {
  const std::string name = GetParam();
  const fs::path file = kDir / (name + ".onnx");
  ASSERT_TRUE(fs::exists(file)) << file << " (the sample_models target writes it)";
  {
    const ir::Graph built = sample(name).build({});
    auto imported = onnx_import::importModel(file);
    ASSERT_TRUE(imported.ok()) << imported.errorText();
    samples_test::expectSameGraph(built, *imported, /*compareDimParams=*/false);
    for (size_t i = 0; i < imported->numValues(); ++i) {
      const ir::Value& v = imported->value(static_cast<ir::ValueId>(i));
      if (!v.consumers.empty() || v.isGraphOutput) {
        EXPECT_TRUE(v.type.fullyKnown()) << v.name;
      }
    }
    // Another process wrote the file; this one generates the same bytes.
    auto bytes = onnx_export::exportModelToBytes(built, samples::sampleExportOptions(false));
    ASSERT_TRUE(bytes.ok()) << bytes.errorText();
    EXPECT_TRUE(*bytes == readFile(file)) << name << " is not reproducible";
  }
}

INSTANTIATE_TEST_SUITE_P(Build, SampleFile, ::testing::ValuesIn(sampleNames()),
                         [](const auto& info) { return info.param; });

// A fixed, varied input.
ir::Tensor inputFor(const ir::TensorType& t, int salt) {
  ir::Tensor x(ir::DType::Float32, t.shape);
  auto v = x.values<float>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37f * static_cast<float>(i) + static_cast<float>(salt));
  return x;
}

class SmallSampleRun : public ::testing::TestWithParam<std::string> {};

TEST_P(SmallSampleRun, RunsWithTheSameOutputsBeforeAndAfterTheFile) {
  const std::string name = GetParam();
  const ir::Graph built = sample(name).build({});
  auto imported = onnx_import::importModel(kDir / (name + ".onnx"));
  ASSERT_TRUE(imported.ok()) << imported.errorText();
  std::vector<ir::Tensor> inputs;
  for (size_t i = 0; i < built.inputs().size(); ++i)
    inputs.push_back(inputFor(built.value(built.inputs()[i]).type, static_cast<int>(i)));

  const auto start = std::chrono::steady_clock::now();
  auto a = exec::runReference(built, inputs);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(a.ok()) << a.errorText();
  auto b = exec::runReference(*imported, inputs);
  ASSERT_TRUE(b.ok()) << b.errorText();
  RecordProperty("reference_seconds", std::to_string(seconds));
  ASSERT_EQ(a->size(), built.outputs().size());
  for (size_t i = 0; i < a->size(); ++i) {
    const ir::Tensor& out = (*a)[i];
    EXPECT_EQ(out.shape(), built.value(built.outputs()[i]).type.shape);
    EXPECT_TRUE(samples_test::sameTensor(out, (*b)[i])) << name << " output " << i;
    // The seeded weights keep activations alive and finite through the
    // whole depth (no overflow, no collapse to zero).
    double sumSq = 0;
    bool finite = true;
    for (float f : out.values<float>()) {
      finite = finite && std::isfinite(f);
      sumSq += static_cast<double>(f) * f;
    }
    EXPECT_TRUE(finite) << name;
    const double rms = std::sqrt(sumSq / static_cast<double>(out.numel()));
    EXPECT_GT(rms, 1e-3) << name;
    EXPECT_LT(rms, 1e3) << name;
  }
}

// The big CNNs (ResNeXt-29: 21 GFLOP, AlexNet, NASNet with 1100 nodes) are
// only imported above, not run: it would dominate the suite's time.
// Inception-V3 (11.5 GFLOP, but 0.5 s in the reference executor) is run: its
// 94 conv-BN layers are the deepest stack the seeded weights must keep alive.
INSTANTIATE_TEST_SUITE_P(Build, SmallSampleRun,
                         ::testing::Values("inception_block", "nasbench_cells", "lstm_tc", "seq2seq", "deepspeech2",
                                           "squeezenet", "randwire", "inception_v3"),
                         [](const auto& info) { return info.param; });

TEST(SampleWriter, RefusesModelsOverTheWeightLimit) {
  const fs::path dir = fs::temp_directory_path() / ("rammer_samples_limit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  samples::WriteOptions opt;
  opt.maxWeightBytes = 2'000'000;
  auto r = samples::writeSample(sample("lstm_tc"), dir, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("over the limit"), std::string::npos) << r.errorText();
  EXPECT_FALSE(fs::exists(dir / "lstm_tc.onnx"));
  auto ok = samples::writeSample(sample("inception_block"), dir, opt);
  ASSERT_TRUE(ok.ok()) << ok.errorText();
  EXPECT_EQ(ok->fileBytes, fs::file_size(dir / "inception_block.onnx"));
  EXPECT_NE(samples::summaryLine(*ok, 0).find("inception_block"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rammer

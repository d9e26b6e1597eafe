// The CPU emulator against the reference executor on every sample model the
// build writes and on 1,000 random NAS-Bench-101 cells, for every policy:
// the schedules and the rKernels' CPU functions together must compute what
// the graph means (rtol 1e-4, atol 1e-5 of the largest reference value).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/policy.h"
#include "samples/builder/cnn_layers.h"
#include "samples/zoo/nasbench_dag.h"
#include "samples/zoo/sample_catalog.h"
#include "samples/zoo/sample_config.h"
#include "tests/samples/sample_helpers.h"

namespace rammer {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> sampleNames() { return samples_test::buildSampleNames(); }

std::vector<ir::Tensor> randomInputs(const ir::Graph& g, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<ir::Tensor> out;
  for (ir::ValueId v : g.inputs()) {
    ir::Tensor t(ir::DType::Float32, g.value(v).type.shape);
    for (float& x : t.values<float>()) x = d(rng);
    out.push_back(std::move(t));
  }
  return out;
}

// Empty when every output is within rtol 1e-4 + 1e-5 x max |reference|;
// otherwise what differs first.
std::string compareOutputs(const std::vector<ir::Tensor>& got, const std::vector<ir::Tensor>& want) {
  if (got.size() != want.size()) return "output count " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i].shape() != want[i].shape() || got[i].dtype() != want[i].dtype())
      return "output " + std::to_string(i) + " has shape " + ir::shapeToString(got[i].shape()) + ", reference " +
             ir::shapeToString(want[i].shape());
    const auto g = got[i].values<float>();
    const auto w = want[i].values<float>();
    double scale = 0;
    for (float v : w) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    for (size_t e = 0; e < w.size(); ++e) {
      const double diff = std::fabs(static_cast<double>(g[e]) - w[e]);
      if (!(diff <= 1e-5 * scale + 1e-4 * std::fabs(w[e])))  // also catches NaN
        return "output " + std::to_string(i) + " element " + std::to_string(e) + ": emulator " + std::to_string(g[e]) +
               ", reference " + std::to_string(w[e]) + " (max |reference| " + std::to_string(scale) + ")";
    }
  }
  return {};
}

// Schedules `g` with `policy` and emulates the plan; the first mismatch or
// error, or empty. (The validator is not asked: the policy tests do that,
// and on plans of thousands of programs it costs more than the emulation.)
std::string emulateWith(const std::string& policyName, const ir::Graph& g, const std::vector<ir::Tensor>& inputs,
                        const std::vector<ir::Tensor>& want, const device::DeviceSpec& device, int threads = 0) {
  auto policy = schedule::makePolicy(policyName);
  if (!policy) return policy.errorText();
  auto plan = (*policy)->schedule(g, device, {});
  if (!plan) return "scheduling failed: " + plan.errorText();
  exec::EmulatorOptions options;
  options.threads = threads;
  auto got = exec::emulatePlan(*plan, g, inputs, options);
  if (!got) return got.errorText();
  return compareOutputs(got->outputs, want);
}

ir::Graph optimize(ir::Graph g, const passes::PassOptions& options = {}) {
  passes::PassContext ctx;
  auto records = passes::standardPipeline(options).run(g, ctx);
  if (!records) throw std::runtime_error(records.errorText());
  return g;
}

// One test per (sample, policy), so ctest runs them side by side and none
// takes long; the import and the reference run are repeated per policy.
// Every sample, the big ones too: cost follows rTasks and barriers more than
// FLOPs (on two cores: inception_v3, 11.5 GFLOP, 1.4-5.7 s per policy;
// randwire 0.3-5 s, its IOS plan 5.5-17 s; deepspeech2's IOS plan 19-49 s).
struct SampleCase {
  std::string sample;
  std::string policy;
  bool fuseAttention = false;
};
// What gtest prints for GetParam() (otherwise the struct's bytes).
void PrintTo(const SampleCase& c, std::ostream* os) {
  *os << c.sample << " " << c.policy << (c.fuseAttention ? " fused" : "");
}

std::vector<SampleCase> sampleCases() {
  std::vector<SampleCase> out;
  for (const std::string& s : sampleNames())
    for (const std::string& p : schedule::policyNames()) out.push_back({s, p});
  return out;
}

class EmulatorSample : public ::testing::TestWithParam<SampleCase> {};

TEST_P(EmulatorSample, MatchesTheReference) {
  const SampleCase& c = GetParam();
  const fs::path file = fs::path(RAMMER_SAMPLES_DIR) / (c.sample + ".onnx");
  ASSERT_TRUE(fs::exists(file)) << file << " (the sample_models target writes it)";
  onnx_import::ImportOptions io;
  io.batch = 1;
  auto imported = onnx_import::importModel(file, io);
  ASSERT_TRUE(imported.ok()) << imported.errorText();
  const ir::Graph g = optimize(std::move(imported).value());
  const std::vector<ir::Tensor> inputs = randomInputs(g, 7);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  const std::string failure = emulateWith(c.policy, g, inputs, *want, device::presetDevice("h100").value());
  EXPECT_TRUE(failure.empty()) << c.sample << " with " << c.policy << ": " << failure;
}

INSTANTIATE_TEST_SUITE_P(Samples, EmulatorSample, ::testing::ValuesIn(sampleCases()),
                         [](const ::testing::TestParamInfo<SampleCase>& i) {
                           return i.param.sample + "_" + i.param.policy;
                         });

// The transformer samples (written only on demand) at one layer (Swin: two
// per stage, so that half its blocks shift), full width: built in memory,
// optimized (the folded masks, fused GELUs) and emulated under every policy.
class TransformerSample : public ::testing::TestWithParam<SampleCase> {};

TEST_P(TransformerSample, ALayerMatchesTheReference) {
  const SampleCase& c = GetParam();
  const auto catalog = samples::sampleCatalog();
  samples::SampleConfig config;
  config.transformerLayers = c.sample == "swin_t" ? 2 : 1;
  const ir::Graph g = optimize(samples::findSample(catalog, c.sample)->build(config), {.fuseAttention = c.fuseAttention});
  // Attention is fused when asked for (in Swin's shifted blocks the mask is
  // added to reshaped scores, so only the others fuse), never otherwise.
  const auto hist = samples_test::opHistogram(g);
  const int fused = hist.count("Attention") ? hist.at("Attention") : 0;
  if (c.fuseAttention) {
    EXPECT_GT(fused, 0) << c.sample;
    if (c.sample != "swin_t") EXPECT_EQ(hist.count("Softmax"), 0u) << c.sample;
  } else {
    EXPECT_EQ(fused, 0) << c.sample;
  }
  const std::vector<ir::Tensor> inputs = randomInputs(g, 11);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  const std::string failure = emulateWith(c.policy, g, inputs, *want, device::presetDevice("h100").value());
  EXPECT_TRUE(failure.empty()) << c.sample << " with " << c.policy << ": " << failure;
}

std::vector<SampleCase> transformerCases() {
  std::vector<SampleCase> out;
  for (const char* s : {"bert_base", "gpt2_small", "vit_b16", "swin_t"}) {
    for (const std::string& p : schedule::policyNames()) out.push_back({s, p});
    for (const char* p : {"wavefront", "greedy"}) out.push_back({s, p, true});  // flash-attention rKernels
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Samples, TransformerSample, ::testing::ValuesIn(transformerCases()),
                         [](const ::testing::TestParamInfo<SampleCase>& i) {
                           return i.param.sample + "_" + i.param.policy + (i.param.fuseAttention ? "_fused" : "");
                         });

// One NAS-Bench-101 cell as the sample's builder wires it (projections from
// the input, truncation between vertices, sum, concat at the output), at a
// small size: 8 channels in and out, 6x6 pixels.
ir::Graph smallCellGraph(const samples::NasBenchCell& c, uint32_t seed) {
  using namespace samples;
  ModelBuilder b("cell", kSampleOpset, seed);
  const ir::ValueId x = b.input("input", {1, 8, 6, 6});
  const int n = c.vertices();
  const std::vector<int64_t> ch = nasBenchVertexChannels(c, 8, 8);
  std::vector<ir::ValueId> vertex{x};
  for (int t = 1; t < n - 1; ++t) {
    const std::string v = std::string("v").append(std::to_string(t));
    std::vector<ir::ValueId> in;
    for (int src = 1; src < t; ++src) {
      if (!c.edge[src][t]) continue;
      ir::ValueId from = vertex[static_cast<size_t>(src)];
      if (b.channels(from) > ch[static_cast<size_t>(t)])
        from = b.op("Slice", v + ".from" + std::to_string(src),
                    {from, b.ints({0}), b.ints({ch[static_cast<size_t>(t)]}), b.ints({1})});
      in.push_back(from);
    }
    if (c.edge[0][t]) in.push_back(convBnRelu(b, v + ".proj", x, ConvSpec::square(ch[static_cast<size_t>(t)], 1)));
    ir::ValueId sum = in[0];
    for (size_t k = 1; k < in.size(); ++k) sum = add(b, v + ".sum" + std::to_string(k), sum, in[k]);
    const int64_t width = ch[static_cast<size_t>(t)];
    switch (c.ops[static_cast<size_t>(t - 1)]) {
      case NasBenchOp::Conv3x3: sum = convBnRelu(b, v + ".conv3x3", sum, ConvSpec::square(width, 3, 1, 1)); break;
      case NasBenchOp::Conv1x1: sum = convBnRelu(b, v + ".conv1x1", sum, ConvSpec::square(width, 1)); break;
      case NasBenchOp::MaxPool3x3: sum = maxPool(b, v + ".maxpool3x3", sum, 3, 1, Pads::all(1)); break;
    }
    vertex.push_back(sum);
  }
  std::vector<ir::ValueId> outs;
  for (int src = 1; src < n - 1; ++src)
    if (c.edge[src][n - 1]) outs.push_back(vertex[static_cast<size_t>(src)]);
  ir::ValueId out = outs.empty() ? convBnRelu(b, "out_proj", x, ConvSpec::square(8, 1))
                    : outs.size() == 1 ? outs[0]
                                       : concat(b, "concat", outs);
  if (!outs.empty() && c.edge[0][n - 1]) out = add(b, "out_add", out, convBnRelu(b, "out_proj", x, ConvSpec::square(8, 1)));
  b.output(out, 0);
  return b.take();
}

TEST(EmulatorNasBenchCells, ThousandRandomCellsMatchTheReferenceWithEveryPolicy) {
  constexpr int kCells = 1000;
  // A small device keeps the vEU counts (and so the plans) small as well.
  device::DeviceSpec device = device::presetDevice("h100").value();
  device.sms = 8;
  samples::WeightRng rng(1234u);
  std::vector<int> sizes(samples::kNasBenchMaxVertices + 1, 0);
  for (int k = 0; k < kCells; ++k) {
    const samples::NasBenchCell cell = samples::randomNasBenchCell(rng);
    ++sizes[static_cast<size_t>(cell.vertices())];
    const ir::Graph g = optimize(smallCellGraph(cell, static_cast<uint32_t>(k) + 1));
    const std::vector<ir::Tensor> inputs = randomInputs(g, static_cast<uint32_t>(k));
    auto want = exec::runReference(g, inputs);
    ASSERT_TRUE(want.ok()) << "cell " << k << ": " << want.errorText();
    for (const std::string& policy : schedule::policyNames()) {
      // 1..3 threads, so many cells run on fewer threads than vEUs.
      const std::string failure = emulateWith(policy, g, inputs, *want, device, 1 + k % 3);
      ASSERT_TRUE(failure.empty()) << "cell " << k << " (" << cell.vertices() << " vertices, " << cell.edges()
                                   << " edges) with " << policy << ": " << failure;
    }
  }
  // The cells are varied: small and full-size ones both occur.
  EXPECT_GT(sizes[3] + sizes[4], 0);
  EXPECT_GT(sizes[7], 0);
}

}  // namespace
}  // namespace rammer

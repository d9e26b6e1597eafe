// The sample models against their papers: op counts, layer shapes,
// parameter counts and FLOPs worked out by hand from the architectures.
#include <gtest/gtest.h>

#include "core/ops/model_summary.h"
#include "samples/zoo/alexnet.h"
#include "samples/zoo/deepspeech2.h"
#include "samples/zoo/inception_block.h"
#include "samples/zoo/lstm_tc.h"
#include "samples/zoo/nasbench_cells.h"
#include "samples/zoo/nasnet_cifar.h"
#include "samples/zoo/resnext29.h"
#include "samples/zoo/sample_catalog.h"
#include "samples/zoo/seq2seq.h"
#include "tests/samples/sample_helpers.h"

namespace rammer {
namespace {

using samples::SampleConfig;
using namespace samples_test;

using Hist = std::map<std::string, int>;

// Within `rel` of `want`.
void expectClose(double got, double want, double rel, const char* what) {
  EXPECT_NEAR(got, want, rel * want) << what << ": " << got << " vs " << want;
}

int64_t group(const ir::Node& n) { return n.attrs.getInt("group", 1); }

TEST(SampleCatalog, MatchesTheModelsTheBuildWrites) {
  std::string names;
  for (const auto& m : samples::sampleCatalog()) names += (names.empty() ? "" : ",") + m.name;
  EXPECT_EQ(names, RAMMER_SAMPLE_NAMES);
}

TEST(ResNeXt29, HasThePapersStructure) {
  const ir::Graph g = samples::buildResNeXt29({});
  // Stem + 9 blocks x 3 convs + 3 projection shortcuts.
  EXPECT_EQ(opHistogram(g), (Hist{{"Add", 9}, {"BatchNormalization", 31}, {"Conv", 31}, {"Flatten", 1},
                                  {"Gemm", 1}, {"GlobalAveragePool", 1}, {"Relu", 28}}));
  EXPECT_EQ(inputShape(g, 0), (ir::Shape{1, 3, 32, 32}));
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{1, 10}));
  // Cardinality 16, 64 channels per group in stage 1, doubling per stage.
  const int64_t width[] = {1024, 2048, 4096}, out[] = {256, 512, 1024}, side[] = {32, 16, 8};
  for (int s = 0; s < 3; ++s) {
    for (int k = 0; k < 3; ++k) {
      const std::string block = "stage" + std::to_string(s + 1) + ".block" + std::to_string(k);
      const ir::Node* grouped = nodeNamed(g, block + ".conv2.conv");
      ASSERT_NE(grouped, nullptr) << block;
      EXPECT_EQ(group(*grouped), 16);
      EXPECT_EQ(constShape(g, *grouped, 1), (ir::Shape{width[s], width[s] / 16, 3, 3}));
      const ir::Node* relu = nodeNamed(g, block + ".relu");
      ASSERT_NE(relu, nullptr);
      EXPECT_EQ(shapeOf(g, relu->outputs[0]), (ir::Shape{1, out[s], side[s], side[s]}));
    }
  }
  expectClose(static_cast<double>(trainableParams(g)), 68.1e6, 0.01, "trainable parameters");
  const ops::ModelSummary sum = ops::summarize(g);
  expectClose(static_cast<double>(sum.parameterCount), 68.1e6, 0.05, "parameters");
  // Multiply-adds by hand: stem 1.77M, stage-1 blocks 0.956G + 2 x 1.141G,
  // first blocks of stages 2/3 1.443G each, the other four 1.141G each.
  EXPECT_EQ(sum.flopsUnknownNodes, 0u);
  expectClose(sum.flops, 2 * 10.6889e9, 0.01, "FLOPs");
}

TEST(AlexNet, MatchesTorchvision) {
  const ir::Graph g = samples::buildAlexNet({});
  EXPECT_EQ(opHistogram(g), (Hist{{"AveragePool", 1}, {"Conv", 5}, {"Flatten", 1}, {"Gemm", 3}, {"MaxPool", 3},
                                  {"Relu", 7}}));
  const auto convs = nodesOf(g, "Conv");
  const ir::Shape want[] = {{64, 3, 11, 11}, {192, 64, 5, 5}, {384, 192, 3, 3}, {256, 384, 3, 3}, {256, 256, 3, 3}};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(constShape(g, *convs[i], 1), want[i]) << convs[i]->name;
  const auto fcs = nodesOf(g, "Gemm");
  EXPECT_EQ(constShape(g, *fcs[0], 1), (ir::Shape{4096, 9216}));  // 256 x 6 x 6 features
  EXPECT_EQ(constShape(g, *fcs[2], 1), (ir::Shape{1000, 4096}));
  EXPECT_EQ(inputShape(g, 0), (ir::Shape{1, 3, 224, 224}));
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{1, 1000}));
  const ops::ModelSummary sum = ops::summarize(g);
  EXPECT_EQ(sum.parameterCount, 61100840);  // torchvision's alexnet, exactly
  // Multiply-adds by hand: convs 70.3M + 223.9M + 112.1M + 149.5M + 99.7M,
  // FCs 58.6M: 714.2M.
  expectClose(sum.flops, 2 * 714.19e6, 0.01, "FLOPs");
}

TEST(NasNetCifar, HasEighteenNormalAndTwoReductionCells) {
  const ir::Graph g = samples::buildNasNetCifar({});
  const Hist h = opHistogram(g);
  EXPECT_EQ(h.at("Concat"), 20 + 2);  // cells + two factorized reductions
  EXPECT_EQ(h.at("AveragePool"), 18 * 3 + 2 * 2);
  EXPECT_EQ(h.at("MaxPool"), 2 * 2);
  EXPECT_EQ(h.at("Add"), 20 * 5);
  int depthwise = 0;
  for (const ir::Node* c : nodesOf(g, "Conv"))
    if (group(*c) > 1) {
      ++depthwise;
      EXPECT_EQ(group(*c), constShape(g, *c, 1)[0]) << c->name;  // one filter per channel
    }
  EXPECT_EQ(depthwise, 20 * 5 * 2);  // five separable ops of two layers per cell
  // N = 6 normal cells per stage; 6 x filters channels out of a normal cell,
  // 4 x filters out of a reduction cell: 768 before the classifier.
  auto cellOut = [&](const std::string& cell) { return shapeOf(g, nodeNamed(g, cell + ".concat")->outputs[0]); };
  EXPECT_EQ(cellOut("cell5"), (ir::Shape{1, 192, 32, 32}));
  EXPECT_EQ(cellOut("reduction0"), (ir::Shape{1, 256, 16, 16}));
  EXPECT_EQ(cellOut("cell11"), (ir::Shape{1, 384, 16, 16}));
  EXPECT_EQ(cellOut("reduction1"), (ir::Shape{1, 512, 8, 8}));
  EXPECT_EQ(cellOut("cell17"), (ir::Shape{1, 768, 8, 8}));
  EXPECT_EQ(nodeNamed(g, "cell18.concat"), nullptr);
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{1, 10}));
  expectClose(static_cast<double>(trainableParams(g)), 3.3e6, 0.05, "trainable parameters");
  expectClose(static_cast<double>(ops::summarize(g).parameterCount), 3.3e6, 0.05, "parameters");
}

TEST(NasNetCifar, ReductionCellsHalveWithStrideTwoOnTheirInputs) {
  const ir::Graph g = samples::buildNasNetCifar({});
  // Reduction cell block 0: sep 5x5 on the cell input, sep 7x7 on the
  // previous one, both strided.
  const ir::Node* left = nodeNamed(g, "reduction0.block0.left.sep1.depthwise");
  const ir::Node* right = nodeNamed(g, "reduction0.block0.right.sep1.depthwise");
  ASSERT_TRUE(left && right);
  EXPECT_EQ(left->attrs.getInts("kernel_shape"), (std::vector<int64_t>{5, 5}));
  EXPECT_EQ(right->attrs.getInts("kernel_shape"), (std::vector<int64_t>{7, 7}));
  EXPECT_EQ(left->attrs.getInts("strides"), (std::vector<int64_t>{2, 2}));
  // TensorFlow 'SAME' on 32 -> 16: 3 rows of padding, 1 before and 2 after.
  EXPECT_EQ(left->attrs.getInts("pads"), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(nodeNamed(g, "reduction0.block0.left.sep2.depthwise")->attrs.getInts("strides"),
            (std::vector<int64_t>{1, 1}));
}

TEST(DeepSpeech2, HasTwoConvsAndSevenLstms) {
  const ir::Graph g = samples::buildDeepSpeech2({});
  EXPECT_EQ(opHistogram(g), (Hist{{"Add", 1}, {"BatchNormalization", 2}, {"Conv", 2}, {"LSTM", 7}, {"MatMul", 1},
                                  {"Relu", 2}, {"Reshape", 1}, {"Squeeze", 7}, {"Transpose", 1}}));
  EXPECT_EQ(inputShape(g, 0), (ir::Shape{1, 1, 161, 300}));
  const auto convs = nodesOf(g, "Conv");
  EXPECT_EQ(constShape(g, *convs[0], 1), (ir::Shape{32, 1, 41, 11}));
  EXPECT_EQ(convs[0]->attrs.getInts("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(constShape(g, *convs[1], 1), (ir::Shape{32, 32, 21, 11}));
  EXPECT_EQ(convs[1]->attrs.getInts("strides"), (std::vector<int64_t>{2, 1}));
  // 161 x 300 -> 81 x 150 -> 41 x 150: 150 steps of 32 x 41 = 1312 features.
  const auto lstms = nodesOf(g, "LSTM");
  EXPECT_EQ(shapeOf(g, lstms[0]->inputs[0]), (ir::Shape{150, 1, 1312}));
  EXPECT_EQ(constShape(g, *lstms[0], 1), (ir::Shape{1, 1024, 1312}));
  for (const ir::Node* l : lstms) EXPECT_EQ(l->attrs.getInt("hidden_size", 0), 256);
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{150, 1, 29}));
}

TEST(LstmTc, HasTenLayersOfHidden256Over100Steps) {
  const ir::Graph g = samples::buildLstmTc({});
  EXPECT_EQ(opHistogram(g), (Hist{{"LSTM", 10}, {"Squeeze", 10}}));
  EXPECT_EQ(inputShape(g, 0), (ir::Shape{100, 1, 256}));
  for (const ir::Node* l : nodesOf(g, "LSTM")) {
    EXPECT_EQ(l->attrs.getInt("hidden_size", 0), 256);
    EXPECT_EQ(constShape(g, *l, 1), (ir::Shape{1, 1024, 256}));
    EXPECT_EQ(constShape(g, *l, 2), (ir::Shape{1, 1024, 256}));
  }
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{100, 1, 256}));
  EXPECT_EQ(trainableParams(g), 10 * (2 * 1024 * 256 + 2048));
  EXPECT_EQ(ops::summarize(g).parameterCount, trainableParams(g) + 1);  // + the Squeeze axes
}

TEST(Seq2Seq, DecoderStartsFromTheLastFourEncoderLayers) {
  const ir::Graph g = samples::buildSeq2Seq({});
  EXPECT_EQ(opHistogram(g), (Hist{{"Add", 1}, {"LSTM", 12}, {"MatMul", 1}, {"Squeeze", 12}}));
  ASSERT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(inputShape(g, 0), (ir::Shape{100, 1, 128}));
  EXPECT_EQ(inputShape(g, 1), (ir::Shape{30, 1, 128}));
  const auto lstms = nodesOf(g, "LSTM");
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(shapeOf(g, lstms[k]->inputs[0])[0], 100) << lstms[k]->name;
    EXPECT_EQ(lstms[k]->inputs.size(), 4u) << "the encoder starts from zeros";
  }
  for (int k = 0; k < 4; ++k) {
    const ir::Node& dec = *lstms[8 + k];
    const ir::Node& enc = *lstms[4 + k];
    EXPECT_EQ(shapeOf(g, dec.inputs[0])[0], 30) << dec.name;
    ASSERT_EQ(dec.inputs.size(), 7u);
    EXPECT_EQ(dec.inputs[4], ir::kNone);
    EXPECT_EQ(dec.inputs[5], enc.outputs[1]) << dec.name << " initial_h";
    EXPECT_EQ(dec.inputs[6], enc.outputs[2]) << dec.name << " initial_c";
  }
  for (const ir::Node* l : lstms) EXPECT_EQ(l->attrs.getInt("hidden_size", 0), 128);
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{30, 1, 128}));
}

// The pattern the LSTM unrolling pass expects: Y feeds exactly one
// Squeeze(axes=[1]), whose output feeds the next layer.
TEST(RecurrentSamples, EveryLstmIsFollowedBySqueezeOfAxisOne) {
  for (auto build : {samples::buildDeepSpeech2, samples::buildLstmTc, samples::buildSeq2Seq}) {
    const ir::Graph g = build({});
    for (const ir::Node* l : nodesOf(g, "LSTM")) {
      ASSERT_EQ(l->outputs.size(), 3u) << l->name;
      const ir::Value& y = g.value(l->outputs[0]);
      ASSERT_EQ(y.consumers.size(), 1u) << l->name;
      const ir::Node& sq = g.node(y.consumers[0]);
      EXPECT_EQ(sq.opType, "Squeeze") << l->name;
      ASSERT_EQ(sq.inputs.size(), 2u);
      EXPECT_EQ(g.value(sq.inputs[1]).constant->toInt64s(), (std::vector<int64_t>{1})) << l->name;
      EXPECT_EQ(l->attrs.all().size(), 1u) << "forward, default activations: " << l->name;
    }
  }
}

TEST(InceptionBlock, HasFourBranchesConcatenatedTo256Channels) {
  const ir::Graph g = samples::buildInceptionBlock({});
  EXPECT_EQ(opHistogram(g), (Hist{{"AveragePool", 1}, {"BatchNormalization", 7}, {"Concat", 1}, {"Conv", 7},
                                  {"Relu", 7}}));
  std::map<int64_t, int> kernels;
  for (const ir::Node* c : nodesOf(g, "Conv")) ++kernels[constShape(g, *c, 1)[2]];
  EXPECT_EQ(kernels, (std::map<int64_t, int>{{1, 4}, {3, 2}, {5, 1}}));
  const ir::Node* pool = nodesOf(g, "AveragePool")[0];
  EXPECT_EQ(pool->attrs.getInt("count_include_pad", 0), 1);
  EXPECT_EQ(inputShape(g, 0), (ir::Shape{1, 192, 35, 35}));
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{1, 256, 35, 35}));  // 64 + 64 + 96 + 32
  // Conv weights 12288 + 9216 + 76800 + 12288 + 55296 + 82944 + 6144, plus
  // scale and bias of 464 BN channels: torchvision's Mixed_5b.
  EXPECT_EQ(trainableParams(g), 254976 + 2 * 464);
}

TEST(NasBenchCells, StacksTheRequestedNumberOfCells) {
  SampleConfig config;
  config.nasbenchCells = 5;
  const ir::Graph g = samples::buildNasBenchCells(config);
  int cells = 0;
  for (int k = 0; k < 10; ++k) {
    bool any = false;
    for (size_t i = 0; i < g.numNodeSlots(); ++i)
      any = any || g.node(static_cast<ir::NodeId>(i)).name.rfind("cell" + std::to_string(k) + ".", 0) == 0;
    cells += any ? 1 : 0;
  }
  EXPECT_EQ(cells, 5);
  EXPECT_EQ(nodeNamed(g, "stem.conv")->opType, "Conv");
  EXPECT_EQ(outputShape(g, 0), (ir::Shape{1, 10}));
  // Every op is one of NAS-Bench-101's (plus the glue: projections are
  // conv-bn-relu, sums, concats, truncating slices).
  for (const auto& [op, n] : opHistogram(g)) {
    const bool allowed = op == "Conv" || op == "BatchNormalization" || op == "Relu" || op == "MaxPool" ||
                         op == "Add" || op == "Concat" || op == "Slice" || op == "GlobalAveragePool" ||
                         op == "Flatten" || op == "Gemm";
    EXPECT_TRUE(allowed) << op;
  }
}

TEST(SampleModels, TakeTheBatchFromTheConfig) {
  SampleConfig config;
  config.batch = 3;
  const ir::Graph cnn = samples::buildInceptionBlock(config);
  EXPECT_EQ(inputShape(cnn, 0)[0], 3);
  EXPECT_EQ(cnn.value(cnn.inputs()[0]).dimParams, (std::vector<std::string>{"batch", "", "", ""}));
  EXPECT_EQ(outputShape(cnn, 0)[0], 3);
  const ir::Graph rnn = samples::buildSeq2Seq(config);
  for (ir::ValueId in : rnn.inputs()) {
    EXPECT_EQ(shapeOf(rnn, in)[1], 3);
    EXPECT_EQ(rnn.value(in).dimParams, (std::vector<std::string>{"", "batch", ""}));
  }
  EXPECT_EQ(outputShape(rnn, 0), (ir::Shape{30, 3, 128}));
  EXPECT_EQ(cnn.opsetVersion, 14);
}

}  // namespace
}  // namespace rammer

#include "samples/zoo/randwire.h"

#include "samples/builder/cnn_layers.h"

namespace rammer::samples {

namespace {

// ReLU -> depthwise 3x3 -> pointwise 1x1 -> BN, the paper's node operation
// ("ReLU-conv-BN" with a separable conv).
ir::ValueId reluSepConvBn(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out, int64_t stride) {
  x = relu(b, name + ".relu", x);
  const int64_t in = b.channels(x);
  ConvSpec depthwise = ConvSpec::square(in, 3, stride, 1);
  depthwise.groups = in;
  x = conv(b, name + ".conv.depthwise", x, depthwise);
  x = conv(b, name + ".conv.pointwise", x, ConvSpec::square(out, 1));
  return batchNorm(b, name + ".bn", x);
}

// One randomly wired stage: the stage input feeds the DAG's input nodes
// (stride 2), every other node sums its predecessors, the output averages
// the DAG's output nodes.
ir::ValueId randomStage(ModelBuilder& b, const std::string& name, ir::ValueId x, const RandomDag& dag, int64_t out) {
  std::vector<ir::ValueId> node;
  for (int j = 0; j < dag.nodes(); ++j) {
    const std::string n = name + ".node" + std::to_string(j);
    const std::vector<int>& preds = dag.preds[static_cast<size_t>(j)];
    ir::ValueId in = x;
    int64_t stride = 2;
    if (!preds.empty()) {
      stride = 1;
      in = node[static_cast<size_t>(preds[0])];
      for (size_t k = 1; k < preds.size(); ++k)
        in = add(b, n + ".add" + std::to_string(k), in, node[static_cast<size_t>(preds[k])]);
    }
    node.push_back(reluSepConvBn(b, n, in, out, stride));
  }
  std::vector<ir::ValueId> sinks;
  for (int j : dag.outputs()) sinks.push_back(node[static_cast<size_t>(j)]);
  return sinks.size() == 1 ? sinks[0] : b.op("Mean", name + ".mean", std::move(sinks));
}

}  // namespace

std::vector<RandomDag> randWireStageGraphs(const SampleConfig& config) {
  WeightRng rng(kRandWireGraphSeed);
  std::vector<RandomDag> out;
  for (int stage = 0; stage < 3; ++stage)
    out.push_back(wattsStrogatzDag(config.randwireNodes, kRandWireNeighbours, kRandWireRewiring, rng));
  return out;
}

ir::Graph buildRandWire(const SampleConfig& config) {
  const std::vector<RandomDag> graphs = randWireStageGraphs(config);
  ModelBuilder b("randwire", kSampleOpset, config.seed);
  constexpr int64_t c = kRandWireChannels;
  ir::ValueId x = b.input("input", {config.batch, 3, 224, 224}, {kBatchDim});
  x = convBn(b, "conv1", x, ConvSpec::square(c / 2, 3, 2, 1));  // 112x112
  x = relu(b, "conv2.relu", x);
  x = convBn(b, "conv2", x, ConvSpec::square(c, 3, 2, 1));  // 56x56
  x = randomStage(b, "conv3", x, graphs[0], c);              // 28x28
  x = randomStage(b, "conv4", x, graphs[1], 2 * c);          // 14x14
  x = randomStage(b, "conv5", x, graphs[2], 4 * c);          // 7x7
  x = relu(b, "classifier.relu1", x);
  x = convBn(b, "classifier", x, ConvSpec::square(1280, 1));
  x = relu(b, "classifier.relu2", x);
  x = flatten(b, "flatten", globalAvgPool(b, "avgpool", x));
  b.output(dense(b, "fc", x, 1000), 0);
  return b.take();
}

}  // namespace rammer::samples

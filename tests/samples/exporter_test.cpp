// core/onnx/exporter: every attribute kind, custom domains, symbolic dims,
// omitted optional slots and initializers survive export -> import; files
// are deterministic; bad graphs and unwritable paths give errors.
#include "core/onnx/exporter.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <unistd.h>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "core/exec/reference_executor.h"
#include "core/onnx/importer.h"
#include "tests/samples/graph_compare.h"
#include "tests/support/graph_builder.h"

namespace rammer {
namespace {

using onnx_export::ExportOptions;
using samples_test::expectSameGraph;
using testing::attrs;
using testing::GraphBuilder;

ir::Tensor ramp(ir::Shape shape, float scale, float offset = 0) {
  ir::Tensor t(ir::DType::Float32, std::move(shape));
  auto v = t.values<float>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = offset + scale * static_cast<float>((i * 7919) % 23) - scale * 11;
  return t;
}

// One node of (nearly) every kind of attribute, a com.rammer node, a
// Constant with a tensor attribute, an LSTM with an omitted middle input and
// an omitted output.
ir::Graph richGraph() {
  GraphBuilder b;
  ir::Graph& g = b.graph();
  g.name = "rich";
  const ir::ValueId x = b.input("x", {2, 3, 4, 4});
  g.value(x).dimParams = {"batch", "", "", ""};
  ir::ValueId y = b.op("Conv", "conv", {x, b.constant("conv.w", ramp({4, 3, 3, 3}, 0.05f)), b.constant("conv.b", ramp({4}, 0.1f))},
                       attrs({{"kernel_shape", std::vector<int64_t>{3, 3}},
                              {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                              {"group", int64_t{1}}}));
  y = b.op("BatchNormalization", "bn",
           {y, b.constant("bn.s", ramp({4}, 0.01f, 1)), b.constant("bn.b", ramp({4}, 0.01f)),
            b.constant("bn.m", ramp({4}, 0.01f)), b.constant("bn.v", ramp({4}, 0.01f, 1))},
           attrs({{"epsilon", 1e-3f}}));
  y = b.op("LeakyRelu", "leaky", {y}, attrs({{"alpha", 0.25f}}));
  ir::Node fused;
  fused.name = "fused";
  fused.opType = "FusedElementwise";
  fused.domain = "com.rammer";
  fused.inputs = {y, b.constant("fused.k", ramp({1}, 0.0f, 0.5f))};
  fused.attrs = attrs({{"expr", std::string("(add (mul x0 x1) 0.25)")},
                       {"fused_nodes", std::vector<std::string>{"mul", "add"}}});
  fused.outputs = {g.addValue("fused")};
  y = fused.outputs[0];
  g.addNode(std::move(fused));
  const ir::ValueId shape =
      b.op("Constant", "shape", {}, attrs({{"value", ir::Tensor::fromVector<int64_t>({3}, {4, 8, 4})}}));
  y = b.op("Reshape", "to_seq", {y, shape});  // [seq 4, batch 8, input 4]
  const ir::ValueId h0 = b.constant("lstm.h0", ramp({1, 8, 5}, 0.02f));
  const ir::ValueId c0 = b.constant("lstm.c0", ramp({1, 8, 5}, 0.03f));
  ir::Node lstm;
  lstm.name = "lstm";
  lstm.opType = "LSTM";
  lstm.inputs = {y, b.constant("lstm.W", ramp({1, 20, 4}, 0.02f)), b.constant("lstm.R", ramp({1, 20, 5}, 0.02f)),
                 b.constant("lstm.B", ramp({1, 40}, 0.01f)), ir::kNone, h0, c0};
  lstm.outputs = {g.addValue("lstm.Y"), ir::kNone, g.addValue("lstm.Y_c")};
  lstm.attrs = attrs({{"hidden_size", int64_t{5}},
                      {"direction", std::string("forward")},
                      {"activations", std::vector<std::string>{"HardSigmoid", "Tanh", "Tanh"}},
                      {"activation_alpha", std::vector<float>{0.25f}},
                      {"activation_beta", std::vector<float>{0.5f}}});
  const ir::ValueId Y = lstm.outputs[0], Yc = lstm.outputs[2];
  g.addNode(std::move(lstm));
  b.output(b.op("Squeeze", "squeeze", {Y, b.constant("axes", ir::Tensor::fromVector<int64_t>({1}, {1}))}));
  b.output(Yc);
  b.constant("unused", ramp({3}, 1.0f));  // no node reads it: not exported
  EXPECT_TRUE(b.infer().empty());
  return std::move(g);
}

onnx::ModelProto parseModel(const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

ir::Graph importBytes(const std::string& bytes, const onnx_import::ImportOptions& opt = {}) {
  auto g = onnx_import::importModelFromBytes(bytes, {}, "exported", opt);
  EXPECT_TRUE(g.ok()) << g.errorText();
  return g.ok() ? std::move(g).value() : ir::Graph{};
}

std::vector<ir::Tensor> runOn(const ir::Graph& g, const ir::Tensor& input) {
  auto out = exec::runReference(g, {input});
  EXPECT_TRUE(out.ok()) << out.errorText();
  return out.ok() ? std::move(out).value() : std::vector<ir::Tensor>{};
}

TEST(Exporter, RoundTripGivesTheSameGraph) {
  const ir::Graph g = richGraph();
  auto bytes = onnx_export::exportModelToBytes(g);
  ASSERT_TRUE(bytes.ok()) << bytes.errorText();
  // The file's batch is a number (the graph knows it), so the re-import has
  // no dim names to compare.
  expectSameGraph(g, importBytes(*bytes), /*compareDimParams=*/false);
}

TEST(Exporter, RoundTripGivesTheSameReferenceOutputs) {
  const ir::Graph g = richGraph();
  auto bytes = onnx_export::exportModelToBytes(g);
  ASSERT_TRUE(bytes.ok());
  const ir::Graph back = importBytes(*bytes);
  const ir::Tensor input = ramp({2, 3, 4, 4}, 0.1f);
  const auto a = runOn(g, input);
  const auto b = runOn(back, input);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0].shape(), (ir::Shape{4, 8, 5}));
  EXPECT_EQ(a[1].shape(), (ir::Shape{1, 8, 5}));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(samples_test::sameTensor(a[i], b[i])) << "output " << i;
}

TEST(Exporter, WritesEveryAttributeKindWithItsType) {
  auto bytes = onnx_export::exportModelToBytes(richGraph());
  ASSERT_TRUE(bytes.ok());
  const onnx::ModelProto m = parseModel(*bytes);
  std::map<std::string, int> kinds;  // "node.attr" -> AttributeProto type
  for (const auto& n : m.graph().node())
    for (const auto& a : n.attribute()) kinds[n.name() + "." + a.name()] = a.type();
  using A = onnx::AttributeProto;
  EXPECT_EQ(kinds["conv.kernel_shape"], A::INTS);
  EXPECT_EQ(kinds["conv.group"], A::INT);
  EXPECT_EQ(kinds["bn.epsilon"], A::FLOAT);
  EXPECT_EQ(kinds["lstm.direction"], A::STRING);
  EXPECT_EQ(kinds["lstm.activations"], A::STRINGS);
  EXPECT_EQ(kinds["lstm.activation_alpha"], A::FLOATS);
  EXPECT_EQ(kinds["shape.value"], A::TENSOR);
  EXPECT_EQ(kinds.size(), 13u);
}

TEST(Exporter, DeclaresCustomDomainsAndTheOpset) {
  auto bytes = onnx_export::exportModelToBytes(richGraph());
  ASSERT_TRUE(bytes.ok());
  const onnx::ModelProto m = parseModel(*bytes);
  ASSERT_EQ(m.opset_import_size(), 2);
  EXPECT_EQ(m.opset_import(0).domain(), "");
  EXPECT_EQ(m.opset_import(0).version(), 17);
  EXPECT_EQ(m.opset_import(1).domain(), "com.rammer");
  EXPECT_EQ(m.opset_import(1).version(), 1);
  EXPECT_EQ(m.ir_version(), 8);  // ONNX 1.12 shipped opset 17 with IR version 8
  bool found = false;
  for (const auto& n : m.graph().node())
    if (n.op_type() == "FusedElementwise") found = n.domain() == "com.rammer";
  EXPECT_TRUE(found);

  ExportOptions opt;
  opt.domainVersions["com.rammer"] = 3;
  opt.irVersion = 9;
  const onnx::ModelProto m2 = parseModel(*onnx_export::exportModelToBytes(richGraph(), opt));
  EXPECT_EQ(m2.opset_import(1).version(), 3);
  EXPECT_EQ(m2.ir_version(), 9);
}

TEST(Exporter, IrVersionFollowsTheOpsetReleaseTable) {
  EXPECT_EQ(onnx_export::irVersionForOpset(7), 3);
  EXPECT_EQ(onnx_export::irVersionForOpset(9), 4);
  EXPECT_EQ(onnx_export::irVersionForOpset(11), 6);
  EXPECT_EQ(onnx_export::irVersionForOpset(13), 7);
  EXPECT_EQ(onnx_export::irVersionForOpset(14), 7);
  EXPECT_EQ(onnx_export::irVersionForOpset(15), 8);
  EXPECT_EQ(onnx_export::irVersionForOpset(18), 8);
}

TEST(Exporter, WritesInitializersForUsedConstantsOnly) {
  auto bytes = onnx_export::exportModelToBytes(richGraph());
  ASSERT_TRUE(bytes.ok());
  const onnx::ModelProto m = parseModel(*bytes);
  std::vector<std::string> names;
  for (const auto& t : m.graph().initializer()) names.push_back(t.name());
  const std::vector<std::string> want{"conv.w", "conv.b", "bn.s", "bn.b", "bn.m", "bn.v", "fused.k",
                                      "lstm.h0", "lstm.c0", "lstm.W", "lstm.R", "lstm.B", "axes"};
  EXPECT_EQ(names, want);
  // Weights keep their bytes.
  const auto& w = m.graph().initializer(0);
  EXPECT_EQ(w.data_type(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(std::vector<int64_t>(w.dims().begin(), w.dims().end()), (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_EQ(w.raw_data().size(), 4u * 3 * 3 * 3 * sizeof(float));
}

TEST(Exporter, KeepsOmittedOptionalSlotsAsEmptyNames) {
  const onnx::ModelProto m = parseModel(*onnx_export::exportModelToBytes(richGraph()));
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "LSTM") continue;
    ASSERT_EQ(n.input_size(), 7);
    EXPECT_EQ(n.input(4), "");  // sequence_lens
    EXPECT_EQ(n.input(5), "lstm.h0");
    ASSERT_EQ(n.output_size(), 3);
    EXPECT_EQ(n.output(1), "");  // Y_h
    EXPECT_EQ(n.output(2), "lstm.Y_c");
    return;
  }
  FAIL() << "no LSTM node";
}

TEST(Exporter, SymbolicDimsAreNamedOrNumbered) {
  const ir::Graph g = richGraph();
  auto dimsOf = [](const onnx::ModelProto& m) {
    std::vector<std::string> out;
    for (const auto& d : m.graph().input(0).type().tensor_type().shape().dim())
      out.push_back(d.has_dim_param() ? d.dim_param() : std::to_string(d.dim_value()));
    return out;
  };
  EXPECT_EQ(dimsOf(parseModel(*onnx_export::exportModelToBytes(g))), (std::vector<std::string>{"2", "3", "4", "4"}));
  ExportOptions opt;
  opt.symbolicDims = true;
  auto bytes = onnx_export::exportModelToBytes(g, opt);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(dimsOf(parseModel(*bytes)), (std::vector<std::string>{"batch", "3", "4", "4"}));
  // Bound again at import, the graph is the same, dim names included.
  onnx_import::ImportOptions io;
  io.batch = 2;
  expectSameGraph(g, importBytes(*bytes, io));

  // An unknown dim with a name is always written as the name; one without a
  // name as an empty dim.
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {ir::kUnknownDim, ir::kUnknownDim, 3});
  b.graph().value(x).dimParams = {"n", "", ""};
  b.output(b.op("Relu", "r", {x}));
  ASSERT_TRUE(b.infer().empty());
  const onnx::ModelProto m = parseModel(*onnx_export::exportModelToBytes(b.graph()));
  const auto& dims = m.graph().input(0).type().tensor_type().shape().dim();
  ASSERT_EQ(dims.size(), 3);
  EXPECT_EQ(dims[0].dim_param(), "n");
  EXPECT_FALSE(dims[1].has_dim_param() || dims[1].has_dim_value());
  EXPECT_EQ(dims[2].dim_value(), 3);
}

TEST(Exporter, ValueInfoDeclaresIntermediateTypes) {
  ExportOptions opt;
  opt.valueInfo = true;
  const onnx::ModelProto m = parseModel(*onnx_export::exportModelToBytes(richGraph(), opt));
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& vi : m.graph().value_info()) {
    std::vector<int64_t> dims;
    for (const auto& d : vi.type().tensor_type().shape().dim()) dims.push_back(d.dim_value());
    shapes[vi.name()] = dims;
  }
  EXPECT_EQ(shapes["conv"], (std::vector<int64_t>{2, 4, 4, 4}));
  EXPECT_EQ(shapes["to_seq"], (std::vector<int64_t>{4, 8, 4}));
  EXPECT_EQ(shapes["lstm.Y"], (std::vector<int64_t>{4, 1, 8, 5}));
  EXPECT_EQ(shapes.count("squeeze"), 0u);  // graph outputs are declared as outputs
  EXPECT_EQ(parseModel(*onnx_export::exportModelToBytes(richGraph())).graph().value_info_size(), 0);
}

TEST(Exporter, SameGraphGivesByteIdenticalFiles) {
  auto a = onnx_export::exportModelToBytes(richGraph());
  auto b = onnx_export::exportModelToBytes(richGraph());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);

  const auto dir = std::filesystem::temp_directory_path() / ("rammer_exporter_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(onnx_export::exportModel(richGraph(), dir / "m.onnx").empty());
  std::ifstream in(dir / "m.onnx", std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(file, *a);
  EXPECT_FALSE(std::filesystem::exists(dir / "m.onnx.tmp"));
  std::filesystem::remove_all(dir);
}

TEST(Exporter, RefusesGraphsItCannotWrite) {
  ir::Graph noOpset = richGraph();
  noOpset.opsetVersion = 0;
  auto r = onnx_export::exportModelToBytes(noOpset);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("opset"), std::string::npos) << r.errorText();

  // A cycle: a = Relu(b), b = Relu(a).
  ir::Graph cyc;
  cyc.opsetVersion = 17;
  const ir::ValueId a = cyc.addValue("a"), bv = cyc.addValue("b");
  ir::Node n1;
  n1.name = "first";
  n1.opType = "Relu";
  n1.inputs = {bv};
  n1.outputs = {a};
  ir::Node n2 = n1;
  n2.name = "second";
  n2.inputs = {a};
  n2.outputs = {bv};
  cyc.addNode(n1);
  cyc.addNode(n2);
  cyc.addOutput(a);
  r = onnx_export::exportModelToBytes(cyc);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errorText().find("cycle"), std::string::npos) << r.errorText();
}

TEST(Exporter, ReportsAnUnwritablePath) {
  const auto file = std::filesystem::temp_directory_path() / "rammer_no_such_dir_for_export" / "m.onnx";
  const auto errors = onnx_export::exportModel(richGraph(), file);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, file.string());
  EXPECT_NE(errors[0].message.find("cannot open"), std::string::npos) << errors[0].message;
  EXPECT_FALSE(std::filesystem::exists(file.parent_path()));
}

}  // namespace
}  // namespace rammer

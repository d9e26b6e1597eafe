// The bad-input corpus: every malformed model is built here, serialised to a
// scratch folder, and must be refused with a message that names the problem
// and the node or value at fault (never a crash).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "core/onnx/importer.h"
#include "model_builder.h"
#include "test_registry.h"

namespace rammer::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using onnx_import::ImportOptions;
using onnx_import::importModel;

class ImportErrors : public ::testing::Test {
 protected:
  // Saves `m` as model.onnx and imports it with the test registry; the
  // import must fail. Returns the formatted diagnostics and checks that
  // each names the file.
  std::string importFailure(const ModelBuilder& m, ImportOptions options = {}) {
    const auto file = dir / "model.onnx";
    m.save(file);
    return failureOf(file, options);
  }
  std::filesystem::path save(const ModelBuilder& m) {
    m.save(dir / "m.onnx");
    return dir / "m.onnx";
  }
  std::string failureOf(const std::filesystem::path& file, ImportOptions options = {}) {
    if (!options.registry) options.registry = &registry;
    auto r = importModel(file, options);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return {};
    for (const auto& d : r.errors()) EXPECT_EQ(d.file, file.string()) << d.message;
    return r.errorText();
  }
  // x -> Relu -> y, the smallest valid model, to break in different ways.
  static ModelBuilder reluModel() {
    ModelBuilder m;
    m.input("x", {1, 4});
    m.node("Relu", {"x"}, {"y"}, "relu");
    m.output("y", {1, 4});
    return m;
  }

  ops::OpRegistry registry = testRegistry();
  ScratchDir dir;
};

TEST_F(ImportErrors, MissingFile) {
  const std::string err = failureOf(dir / "nope.onnx");
  EXPECT_THAT(err, HasSubstr("does not exist"));
  EXPECT_THAT(err, HasSubstr("nope.onnx"));
}

TEST_F(ImportErrors, DirectoryInsteadOfFile) {
  EXPECT_THAT(failureOf(dir.path()), HasSubstr("directory"));
}

TEST_F(ImportErrors, EmptyFile) {
  writeBytes(dir / "empty.onnx", "");
  EXPECT_THAT(failureOf(dir / "empty.onnx"), HasSubstr("is empty"));
}

TEST_F(ImportErrors, TruncatedFile) {
  ModelBuilder m = reluModel();
  m.floatInit("w", {256}, std::vector<float>(256, 1.5f));
  const std::string full = m.bytes();
  writeBytes(dir / "cut.onnx", full.substr(0, full.size() / 2));
  const std::string err = failureOf(dir / "cut.onnx");
  EXPECT_THAT(err, HasSubstr("is not a valid ONNX model: protobuf parse failed"));
  EXPECT_THAT(err, HasSubstr("cut.onnx"));
}

TEST_F(ImportErrors, RandomBytes) {
  std::mt19937 rng(1234);
  std::string junk(4096, '\0');
  for (char& c : junk) c = static_cast<char>(rng() & 0xff);
  writeBytes(dir / "junk.onnx", junk);
  EXPECT_THAT(failureOf(dir / "junk.onnx"), HasSubstr("is not a valid ONNX model"));
}

TEST_F(ImportErrors, InvalidVarintIsNotProtobuf) {
  writeBytes(dir / "ff.onnx", std::string(64, '\xff'));
  EXPECT_THAT(failureOf(dir / "ff.onnx"), HasSubstr("protobuf parse failed"));
}

TEST_F(ImportErrors, ProtobufWithoutGraph) {
  ModelBuilder m;
  m.model.clear_graph();
  EXPECT_THAT(importFailure(m), HasSubstr("has no graph"));
}

TEST_F(ImportErrors, BytesEntryPointNamesTheDisplayName) {
  auto r = onnx_import::importModelFromBytes(std::string(16, '\xff'), dir.path(), "shown-name.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors().at(0).file, "shown-name.onnx");
  EXPECT_THAT(r.errorText(), HasSubstr("protobuf parse failed"));
}

TEST_F(ImportErrors, OpsetOutOfRange) {
  for (int64_t opset : {5, 19}) {
    ModelBuilder m = reluModel();
    m.model.mutable_opset_import(0)->set_version(opset);
    const std::string err = importFailure(m);
    EXPECT_THAT(err, HasSubstr("opset " + std::to_string(opset) + " is not supported"));
    EXPECT_THAT(err, HasSubstr("supported: 6..18"));
  }
}

TEST_F(ImportErrors, NoDefaultOpset) {
  ModelBuilder m = reluModel();
  m.model.mutable_opset_import(0)->set_domain("com.example");
  EXPECT_THAT(importFailure(m), HasSubstr("no default-domain (ai.onnx) opset"));
}

TEST_F(ImportErrors, IrVersionOutOfRange) {
  ModelBuilder m = reluModel();
  m.model.set_ir_version(2);
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("IR version 2 is not supported"));
  EXPECT_THAT(err, HasSubstr("supported: 3..11"));
}

TEST_F(ImportErrors, CyclicGraph) {
  ModelBuilder m;
  m.input("x", {4});
  m.node("Add", {"x", "b"}, {"a"}, "first");
  m.node("Relu", {"a"}, {"b"}, "second");
  m.node("Relu", {"a"}, {"y"}, "tail");
  m.output("y", {4});
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("cycle"));
  EXPECT_THAT(err, HasSubstr("'first'"));
  EXPECT_THAT(err, HasSubstr("'second'"));
  EXPECT_THAT(err, Not(HasSubstr("'tail' ->")));
}

TEST_F(ImportErrors, DanglingInput) {
  ModelBuilder m;
  m.input("x", {4});
  m.node("Add", {"x", "ghost"}, {"y"}, "adder");
  m.output("y", {4});
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("node 'adder'"));
  EXPECT_THAT(err, HasSubstr("input 'ghost' is not produced by any node, initializer or graph input"));
}

TEST_F(ImportErrors, EveryDanglingInputIsReported) {
  ModelBuilder m;
  m.input("x", {4});
  m.node("Add", {"x", "ghost1"}, {"a"}, "n1");
  m.node("Add", {"a", "ghost2"}, {"y"}, "n2");
  m.output("y", {4});
  auto r = importModel(save(m), using_(registry));
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors().size(), 2u) << r.errorText();
  EXPECT_EQ(r.errors()[0].node, "n1");
  EXPECT_EQ(r.errors()[1].node, "n2");
}

TEST_F(ImportErrors, DuplicateProducer) {
  ModelBuilder m;
  m.input("x", {4});
  m.node("Relu", {"x"}, {"y"}, "one");
  m.node("Identity", {"x"}, {"y"}, "two");
  m.output("y", {4});
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("value 'y' is produced twice (by nodes 'one' and 'two')"));
}

TEST_F(ImportErrors, NodeOverwritesAnInitializer) {
  ModelBuilder m = reluModel();
  m.floatInit("w", {1}, {1.f});
  m.node("Relu", {"x"}, {"w"}, "clobber");
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("value 'w' is produced by node 'clobber' but is also an initializer"));
}

TEST_F(ImportErrors, GraphOutputNeverProduced) {
  ModelBuilder m = reluModel();
  m.output("nowhere", {1, 4});
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("graph output 'nowhere' is not produced"));
}

TEST_F(ImportErrors, UnsupportedOpsListedOnceWithCounts) {
  ModelBuilder m = reluModel();
  m.node("Loop", {"x"}, {"l1"}, "loop1");
  m.node("NonMaxSuppression", {"x"}, {"n1"});
  m.node("Loop", {"x"}, {"l2"});
  m.node("FusedConv", {"x"}, {"f1"}, "", "com.microsoft");
  auto r = importModel(save(m), using_(registry));
  ASSERT_FALSE(r.ok());
  // One diagnostic holds them all, in a stable (sorted) order.
  int mentions = 0;
  for (const auto& d : r.errors()) mentions += d.message.find("unsupported operators") != std::string::npos;
  EXPECT_EQ(mentions, 1);
  EXPECT_THAT(r.errorText(),
              HasSubstr("unsupported operators: Loop (2), NonMaxSuppression (1), com.microsoft.FusedConv (1)"));
  EXPECT_THAT(r.errorText(), Not(HasSubstr("Relu")));
}

TEST_F(ImportErrors, BuiltinRegistryRefusesOtherDomains) {
  ModelBuilder m(12, 7);
  m.input("x", {1});
  m.node("Gradient", {"x"}, {"g"}, "grad", "ai.onnx.preview.training");
  m.output("g", {1});
  m.save(dir / "m.onnx");
  auto r = importModel(dir / "m.onnx");  // the real registry
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.errorText(), HasSubstr("unsupported operators: ai.onnx.preview.training.Gradient (1)"));
}

TEST_F(ImportErrors, SubgraphAttribute) {
  ModelBuilder m;
  m.input("cond", {}, onnx::TensorProto::BOOL);
  auto& n = m.node("If", {"cond"}, {"y"}, "branch");
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    a->mutable_g()->set_name(name);
  }
  m.output("y", {1});
  addOpaqueOps(registry, {"If"});
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("subgraph attributes are not supported (node 'branch', op If"));
  // Reported once per node, not once per branch.
  EXPECT_EQ(err.find("subgraph"), err.rfind("subgraph"));
}

TEST_F(ImportErrors, InitializerTypeDisagreesWithDeclaredInput) {
  ModelBuilder m;
  m.input("x", {2});
  m.input("shape", {2}, onnx::TensorProto::INT64);
  m.floatInit("shape", {2}, {1.f, 2.f});
  m.node("Add", {"x", "shape"}, {"y"}, "add");
  m.output("y", {2});
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("graph input 'shape' is declared int64 but its initializer is float32"));
}

TEST_F(ImportErrors, InitializerShapeDisagreesWithDeclaredInput) {
  ModelBuilder m;
  m.input("x", {2});
  m.input("w", {3});
  m.floatInit("w", {2}, {1.f, 2.f});
  m.node("Add", {"x", "w"}, {"y"}, "add");
  m.output("y", {2});
  EXPECT_THAT(importFailure(m), HasSubstr("graph input 'w' is declared with shape [3] but its initializer has shape [2]"));
}

TEST_F(ImportErrors, OpLevelTypeMismatchFromInference) {
  ModelBuilder m;
  m.input("a", {2});
  m.input("b", {2}, onnx::TensorProto::INT64);
  m.node("Add", {"a", "b"}, {"y"}, "mixed");
  m.output("y", {2});
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("node 'mixed'"));
  EXPECT_THAT(err, HasSubstr("float32 and int64"));
}

// Needs the elementwise ops (Add) of the real registry.
TEST_F(ImportErrors, BuiltinAddOfFloatAndInt64) {
  ModelBuilder m;
  m.input("a", {2});
  m.input("b", {2}, onnx::TensorProto::INT64);
  m.node("Add", {"a", "b"}, {"y"}, "mixed");
  m.output("y", {2});
  m.save(dir / "m.onnx");
  auto r = importModel(dir / "m.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.errorText(), HasSubstr("node 'mixed'"));
  EXPECT_THAT(r.errorText(), Not(HasSubstr("unsupported"))) << "Add is not registered yet";
  EXPECT_EQ(r.errors().at(0).file, (dir / "m.onnx").string());
}

TEST_F(ImportErrors, DeclaredOutputTypeDisagreesWithInference) {
  ModelBuilder m;
  m.input("x", {1, 4});
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.output("y", {1, 4}, onnx::TensorProto::INT32);
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("node 'relu'"));
  EXPECT_THAT(err, HasSubstr("declared type int32"));
}

TEST_F(ImportErrors, HugeDeclaredDim) {
  ModelBuilder m;
  m.input("x", {int64_t{1} << 40});
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.untypedOutput("y");
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("value 'x' declares absurd dims"));
  EXPECT_THAT(err, HasSubstr("dim 0 is 1099511627776"));
}

TEST_F(ImportErrors, NegativeDeclaredDim) {
  ModelBuilder m;
  m.input("x", {3, -7});
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.untypedOutput("y");
  EXPECT_THAT(importFailure(m), HasSubstr("value 'x' declares absurd dims [3, ?]: dim 1 is -7"));
}

TEST_F(ImportErrors, TooManyElements) {
  ModelBuilder m;
  m.input("x", {1 << 20, 1 << 20});  // each dim fine, the product is 2^40
  m.node("Relu", {"x"}, {"y"}, "relu");
  m.untypedOutput("y");
  EXPECT_THAT(importFailure(m), HasSubstr("value 'x' declares absurd dims [1048576, 1048576]: shape [1048576, 1048576] has more than 2^34 elements"));
}

TEST_F(ImportErrors, HugeInferredDims) {
  // An op whose inferred output is enormous (as Tile by a corrupt repeat
  // count would be) is refused after inference, naming value and node.
  ModelBuilder m = reluModel();
  m.node("Blowup", {"x"}, {"big"}, "blow");
  m.untypedOutput("big");
  registry.add(opDef("Blowup", [](const ops::OpContext&) {
    return std::vector<ir::TensorType>{{ir::DType::Float32, {int64_t{1} << 20, int64_t{1} << 20}, true}};
  }));
  EXPECT_THAT(importFailure(m), HasSubstr("node 'blow': value 'big' gets absurd dims [1048576, 1048576]"));
}

TEST_F(ImportErrors, HugeDimsInValueInfo) {
  ModelBuilder m = reluModel();
  auto* vi = m.graph().add_value_info();
  vi->set_name("y");
  ModelBuilder::setType(*vi, onnx::TensorProto::FLOAT, {int64_t{1} << 33});
  EXPECT_THAT(importFailure(m), HasSubstr("value 'y' declares absurd dims"));
}

TEST_F(ImportErrors, InitializerWithHugeDimsIsRefusedBeforeAllocating) {
  ModelBuilder m = reluModel();
  auto& t = m.floatInit("big", {}, {});
  t.add_dims(int64_t{1} << 30);
  t.add_dims(int64_t{1} << 30);
  EXPECT_THAT(importFailure(m), HasSubstr("tensor 'big' has absurd dims"));
}

TEST_F(ImportErrors, InitializerDataDoesNotMatchDims) {
  ModelBuilder m = reluModel();
  m.floatInit("w", {2, 3}, {1, 2, 3, 4, 5});
  EXPECT_THAT(importFailure(m),
              HasSubstr("tensor 'w' has dims [2, 3] (24 bytes of float32) but its raw_data holds 20 bytes"));
}

TEST_F(ImportErrors, TypedInitializerDataDoesNotMatchDims) {
  ModelBuilder m = reluModel();
  m.int64Init("k", {4}, {1, 2, 3});
  EXPECT_THAT(importFailure(m),
              HasSubstr("tensor 'k' has dims [4] (4 elements of int64) but its data holds 3 elements"));
}

TEST_F(ImportErrors, SequenceInputIsNotATensor) {
  ModelBuilder m = reluModel();
  auto* vi = m.graph().add_input();
  vi->set_name("seq");
  vi->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  EXPECT_THAT(importFailure(m), HasSubstr("value 'seq' is a sequence; only dense tensors are supported"));
}

TEST_F(ImportErrors, InputWithoutType) {
  ModelBuilder m = reluModel();
  m.graph().add_input()->set_name("untyped");
  EXPECT_THAT(importFailure(m), HasSubstr("graph input 'untyped' declares no tensor type"));
}

TEST_F(ImportErrors, UnsupportedInitializerType) {
  ModelBuilder m = reluModel();
  auto* t = m.graph().add_initializer();
  t->set_name("c");
  t->set_data_type(onnx::TensorProto::COMPLEX64);
  t->add_dims(1);
  t->set_raw_data(std::string(8, '\0'));
  EXPECT_THAT(importFailure(m), HasSubstr("tensor 'c' has unsupported data type 14 (COMPLEX64)"));
}

TEST_F(ImportErrors, ShapeForUnknownInput) {
  ImportOptions o;
  o.inputShapes["typo"] = {1, 4};
  const std::string err = importFailure(reluModel(), o);
  EXPECT_THAT(err, HasSubstr("a shape is given for 'typo', which is not a graph input (inputs: x)"));
}

TEST_F(ImportErrors, ShapeThatContradictsTheDeclaration) {
  ImportOptions o;
  o.inputShapes["x"] = {1, 5};
  EXPECT_THAT(importFailure(reluModel(), o), HasSubstr("input 'x' is declared [1, 4] but given shape [1, 5]"));
}

TEST_F(ImportErrors, ConflictingSymbolBindings) {
  ModelBuilder m;
  m.input("a", {"N", 2});
  m.input("b", {"N", 2});
  m.node("Add", {"a", "b"}, {"y"}, "add");
  m.untypedOutput("y");
  ImportOptions o;
  o.inputShapes["a"] = {3, 2};
  o.inputShapes["b"] = {4, 2};
  EXPECT_THAT(importFailure(m, o), HasSubstr("symbolic dim 'N' is bound to 3 by input 'a' and to 4 by input 'b'"));
}

TEST_F(ImportErrors, BadBatch) {
  ImportOptions o;
  o.batch = 0;
  EXPECT_THAT(importFailure(reluModel(), o), HasSubstr("batch size 0 is out of range"));
}

TEST_F(ImportErrors, NodeWithoutOpType) {
  ModelBuilder m = reluModel();
  m.node("", {"x"}, {"z"});
  EXPECT_THAT(importFailure(m), HasSubstr("node 'node_1': the node has no op_type"));
}

TEST_F(ImportErrors, BadTensorAttributeNamesNodeAndAttribute) {
  ModelBuilder m = reluModel();
  auto* a = m.graph().mutable_node(0)->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(2);
  a->mutable_t()->add_float_data(1.f);
  const std::string err = importFailure(m);
  EXPECT_THAT(err, HasSubstr("node 'relu': attribute 'value': tensor 'relu.value' has dims [2]"));
}

TEST_F(ImportErrors, SparseTensorAttribute) {
  ModelBuilder m = reluModel();
  auto* a = m.graph().mutable_node(0)->add_attribute();
  a->set_name("sparse_value");
  a->set_type(onnx::AttributeProto::SPARSE_TENSOR);
  EXPECT_THAT(importFailure(m), HasSubstr("attribute 'sparse_value' is of kind SPARSE_TENSOR, which is not supported"));
}

// Byte flips anywhere in a valid model (sizes, tags, dims, names) must give
// a model or diagnostics, never a crash (this is also run under ASan/UBSan).
TEST_F(ImportErrors, CorruptedBytesNeverCrash) {
  ModelBuilder m;
  m.input("x", {"N", 4});
  m.floatInit("w", {4}, {1, 2, 3, 4});
  m.int64Init("k", {2}, {1, 4});
  auto& add = m.node("Add", {"x", "w"}, {"s"}, "add");
  ModelBuilder::intAttr(add, "axis", 1);
  m.node("Relu", {"s"}, {"y"}, "relu");
  m.output("y", {"N", 4});
  const std::string good = m.bytes();
  std::mt19937 rng(7);
  int refused = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng() & 0xff);
    if (round % 7 == 0) bad.resize(rng() % bad.size());
    ImportOptions o = using_(registry);
    o.batch = 2;
    auto r = onnx_import::importModelFromBytes(bad, dir.path(), "fuzz.onnx", o);
    if (r.ok()) continue;
    ++refused;
    for (const auto& d : r.errors()) {
      EXPECT_EQ(d.file, "fuzz.onnx");
      EXPECT_FALSE(d.message.empty());
    }
  }
  EXPECT_GT(refused, 100);
}

TEST_F(ImportErrors, ErrorListIsBounded) {
  ModelBuilder m;
  m.input("x", {1});
  std::string prev = "x";
  for (int i = 0; i < 200; ++i) {
    const std::string index = std::to_string(i);
    const std::string out = "v" + index;
    const std::string missing = "missing" + index;
    m.node("Add", {prev, missing}, {out});
    prev = out;
  }
  m.output(prev, {1});
  m.save(dir / "m.onnx");
  auto r = importModel(dir / "m.onnx", using_(registry));
  ASSERT_FALSE(r.ok());
  EXPECT_LE(r.errors().size(), 51u);
  EXPECT_THAT(r.errors().back().message, HasSubstr("more errors"));
  EXPECT_THAT(r.errorText(), HasSubstr("node 'Add_0'"));  // unnamed nodes are named op_index
}

}  // namespace
}  // namespace rammer::test

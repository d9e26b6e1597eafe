// Models that must import, and what the graph looks like afterwards.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/onnx/importer.h"
#include "model_builder.h"
#include "test_registry.h"

namespace rammer::test {
namespace {

using ::testing::ElementsAre;
using onnx_import::ImportOptions;

ImportOptions noInference(bool infer = false) {
  ImportOptions o;
  o.inferTypes = infer;
  return o;
}

class Import : public ::testing::Test {
 protected:
  ir::Graph load(const ModelBuilder& m, ImportOptions options = {}) {
    if (!options.registry) options.registry = &registry;
    m.save(dir / "model.onnx");
    auto r = onnx_import::importModel(dir / "model.onnx", options);
    EXPECT_TRUE(r.ok()) << r.errorText();
    return r.ok() ? std::move(r).value() : ir::Graph{};
  }
  const ir::Value& value(const ir::Graph& g, const std::string& name) {
    auto id = g.findValue(name);
    EXPECT_TRUE(id.has_value()) << name;
    return g.value(id.value_or(0));
  }

  ops::OpRegistry registry = testRegistry();
  ScratchDir dir;
};

TEST_F(Import, SmallGraphStructure) {
  ModelBuilder m(11);
  m.graph().set_name("tiny");
  m.input("x", {2, 3});
  m.floatInit("b", {2, 3}, {1, 2, 3, 4, 5, 6});
  m.node("Add", {"x", "b"}, {"s"}, "add");
  m.node("Relu", {"s"}, {"y"});  // unnamed: gets "Relu_1"
  m.output("y", {2, 3});
  ir::Graph g = load(m);
  EXPECT_EQ(g.name, "tiny");
  EXPECT_EQ(g.opsetVersion, 11);
  ASSERT_EQ(g.numNodes(), 2u);
  EXPECT_EQ(g.node(0).name, "add");
  EXPECT_EQ(g.node(1).name, "Relu_1");
  EXPECT_EQ(g.node(1).opType, "Relu");
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.value(g.inputs()[0]).name, "x");
  ASSERT_EQ(g.outputs().size(), 1u);
  const ir::Value& y = g.value(g.outputs()[0]);
  EXPECT_EQ(y.name, "y");
  EXPECT_TRUE(y.isGraphOutput);
  EXPECT_EQ(y.producer, 1);
  EXPECT_EQ(y.type, (ir::TensorType{ir::DType::Float32, {2, 3}, true}));
  const ir::Value& s = value(g, "s");
  EXPECT_EQ(s.type, (ir::TensorType{ir::DType::Float32, {2, 3}, true}));  // inferred, not declared
  EXPECT_THAT(s.consumers, ElementsAre(1));
  const ir::Value& b = value(g, "b");
  ASSERT_TRUE(b.constant.has_value());
  EXPECT_THAT(b.constant->values<float>(), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_FALSE(b.isGraphInput);
}

TEST_F(Import, NodesMayBeListedOutOfOrder) {
  ModelBuilder m;
  m.input("x", {3});
  m.node("Relu", {"a"}, {"y"}, "second");
  m.node("Relu", {"x"}, {"a"}, "first");
  m.output("y", {3});
  ir::Graph g = load(m);
  auto order = g.topologicalOrder();
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(g.node(order->front()).name, "first");
  EXPECT_EQ(value(g, "y").type.shape, (ir::Shape{3}));
}

TEST_F(Import, InitializerListedAsInputIsAConstant) {
  ModelBuilder m(9, 4);  // how PyTorch exported weights for IR < 4
  m.input("x", {2});
  m.input("w", {2});
  m.floatInit("w", {2}, {0.5f, -1.f});
  m.node("Add", {"x", "w"}, {"y"}, "add");
  m.output("y", {2});
  ir::Graph g = load(m);
  ASSERT_EQ(g.inputs().size(), 1u);
  EXPECT_EQ(g.value(g.inputs()[0]).name, "x");
  const ir::Value& w = value(g, "w");
  EXPECT_FALSE(w.isGraphInput);
  ASSERT_TRUE(w.constant.has_value());
  EXPECT_THAT(w.constant->values<float>(), ElementsAre(0.5f, -1.f));
}

TEST_F(Import, ConstantNodeStaysANodeWithAKnownType) {
  ModelBuilder m;
  m.input("x", {3}, onnx::TensorProto::INT64);
  auto& c = m.node("Constant", {}, {"k"}, "konst");
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  a->mutable_t()->add_dims(3);
  for (int64_t v : {7, 8, 9}) a->mutable_t()->add_int64_data(v);
  m.node("Add", {"x", "k"}, {"y"}, "add");
  m.untypedOutput("y");
  for (bool infer : {true, false}) {
    ir::Graph g = load(m, noInference(infer));
    ASSERT_EQ(g.numNodes(), 2u);
    EXPECT_EQ(g.node(0).opType, "Constant");
    const ir::Value& k = value(g, "k");
    EXPECT_EQ(k.type, (ir::TensorType{ir::DType::Int64, {3}, true})) << "infer=" << infer;
    EXPECT_FALSE(k.constant.has_value());  // folding is a later pass's job
    const ir::Tensor* t = g.node(0).attrs.getTensor("value");
    ASSERT_NE(t, nullptr);
    EXPECT_THAT(t->values<int64_t>(), ElementsAre(7, 8, 9));
    if (infer) {
      EXPECT_EQ(value(g, "y").type, (ir::TensorType{ir::DType::Int64, {3}, true}));
    }
  }
}

TEST_F(Import, ConstantValueFloatsAttributeGivesItsType) {
  ModelBuilder m;
  auto& c = m.node("Constant", {}, {"k"}, "konst");
  auto* a = c.add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  a->add_floats(1.f);
  a->add_floats(2.f);
  m.untypedOutput("k");
  ir::Graph g = load(m, noInference(false));
  EXPECT_EQ(value(g, "k").type, (ir::TensorType{ir::DType::Float32, {2}, true}));
}

// Needs Constant and Add from the real registry.
TEST_F(Import, BuiltinConstantNodeTypeIsInferred) {
  ModelBuilder m;
  m.input("x", {2});
  auto& c = m.node("Constant", {}, {"k"}, "konst");
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(2);
  a->mutable_t()->add_float_data(1.f);
  a->mutable_t()->add_float_data(2.f);
  m.node("Add", {"x", "k"}, {"y"}, "add");
  m.untypedOutput("y");
  m.save(dir / "model.onnx");
  auto r = onnx_import::importModel(dir / "model.onnx");
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(value(*r, "k").type, (ir::TensorType{ir::DType::Float32, {2}, true}));
  EXPECT_EQ(value(*r, "y").type, (ir::TensorType{ir::DType::Float32, {2}, true}));
}

TEST_F(Import, AttributesOfEveryKind) {
  ModelBuilder m;
  m.input("x", {1});
  auto& n = m.node("Relu", {"x"}, {"y"}, "r");
  auto add = [&](const char* name, onnx::AttributeProto::AttributeType t) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(t);
    return a;
  };
  add("i", onnx::AttributeProto::INT)->set_i(-3);
  add("f", onnx::AttributeProto::FLOAT)->set_f(0.25f);
  add("s", onnx::AttributeProto::STRING)->set_s("SAME_UPPER");
  auto* ints = add("ints", onnx::AttributeProto::INTS);
  ints->add_ints(1);
  ints->add_ints(2);
  auto* floats = add("floats", onnx::AttributeProto::FLOATS);
  floats->add_floats(1.5f);
  auto* strings = add("strings", onnx::AttributeProto::STRINGS);
  strings->add_strings("a");
  strings->add_strings("b");
  auto* t = add("t", onnx::AttributeProto::TENSOR)->mutable_t();
  t->set_data_type(onnx::TensorProto::INT32);
  t->add_dims(2);
  t->add_int32_data(4);
  t->add_int32_data(-5);
  auto* untyped = n.add_attribute();  // old exporters: the set field tells the kind
  untyped->set_name("legacy");
  untyped->set_i(42);
  m.output("y", {1});
  ir::Graph g = load(m);
  const ir::Attributes& at = g.node(0).attrs;
  EXPECT_EQ(at.getInt("i", 0), -3);
  EXPECT_EQ(at.getFloat("f", 0), 0.25f);
  EXPECT_EQ(at.getString("s", ""), "SAME_UPPER");
  EXPECT_THAT(at.getInts("ints"), ElementsAre(1, 2));
  EXPECT_THAT(at.getFloats("floats"), ElementsAre(1.5f));
  EXPECT_THAT(at.getStrings("strings"), ElementsAre("a", "b"));
  ASSERT_NE(at.getTensor("t"), nullptr);
  EXPECT_THAT(at.getTensor("t")->values<int32_t>(), ElementsAre(4, -5));
  EXPECT_EQ(at.getInt("legacy", 0), 42);
}

TEST_F(Import, DefaultDomainSpelledOut) {
  ModelBuilder m;
  m.input("x", {1});
  m.node("Relu", {"x"}, {"y"}, "r", "ai.onnx");
  m.output("y", {1});
  ir::Graph g = load(m);
  EXPECT_EQ(g.node(0).domain, "");
}

TEST_F(Import, OmittedOptionalInputsAndOutputs) {
  ModelBuilder m;
  m.input("x", {2});
  m.node("TwoSlots", {"x", ""}, {"y", ""}, "id");
  m.output("y", {2});
  addOpaqueOps(registry, {"TwoSlots"});
  ir::Graph g = load(m);
  EXPECT_THAT(g.node(0).inputs, ElementsAre(*g.findValue("x"), ir::kNone));
  EXPECT_THAT(g.node(0).outputs, ElementsAre(*g.findValue("y"), ir::kNone));
}

TEST_F(Import, GraphOutputMayBeAnInputOrInitializer) {
  ModelBuilder m;
  m.input("x", {2});
  m.floatInit("c", {1}, {3.f});
  m.output("x", {2});
  m.output("c", {1});
  ir::Graph g = load(m);
  ASSERT_EQ(g.outputs().size(), 2u);
  EXPECT_TRUE(value(g, "x").isGraphInput);
  EXPECT_TRUE(value(g, "x").isGraphOutput);
  EXPECT_TRUE(value(g, "c").constant.has_value());
}

TEST_F(Import, SymbolicDimsAreRecorded) {
  ModelBuilder m;
  m.input("x", {"batch", 3, -1});
  m.node("Relu", {"x"}, {"y"}, "r");
  m.output("y", {"batch", 3, "w"});
  ir::Graph g = load(m);
  const ir::Value& x = value(g, "x");
  EXPECT_EQ(x.type.shape, (ir::Shape{ir::kUnknownDim, 3, ir::kUnknownDim}));
  EXPECT_THAT(x.dimParams, ElementsAre("batch", "", ""));
  EXPECT_THAT(value(g, "y").dimParams, ElementsAre("batch", "", "w"));
}

TEST_F(Import, BatchBindsLeadingAndSameNamedDims) {
  ModelBuilder m;
  m.input("a", {"N", 3});
  m.input("b", {5, "N"});   // N again, not leading
  m.input("c", {-1, 2});    // unknown leading dim, no name
  m.input("d", {7, "M"});   // fixed leading dim stays
  m.node("Relu", {"a"}, {"ya"}, "r1");
  m.node("Relu", {"b"}, {"yb"}, "r2");
  m.node("Relu", {"c"}, {"yc"}, "r3");
  m.node("Relu", {"d"}, {"yd"}, "r4");
  for (const char* y : {"ya", "yb", "yc", "yd"}) m.untypedOutput(y);
  ImportOptions o;
  o.batch = 4;
  ir::Graph g = load(m, o);
  EXPECT_EQ(value(g, "a").type.shape, (ir::Shape{4, 3}));
  EXPECT_EQ(value(g, "b").type.shape, (ir::Shape{5, 4}));
  EXPECT_EQ(value(g, "c").type.shape, (ir::Shape{4, 2}));
  EXPECT_EQ(value(g, "d").type.shape, (ir::Shape{7, ir::kUnknownDim}));
  EXPECT_THAT(value(g, "a").dimParams, ElementsAre("N", ""));  // the declaration is kept
  EXPECT_EQ(value(g, "yb").type.shape, (ir::Shape{5, 4}));      // flows through inference
}

TEST_F(Import, WithoutBindingSymbolicDimsStayUnknown) {
  ModelBuilder m;
  m.input("a", {"N", 3});
  m.node("Relu", {"a"}, {"y"}, "r");
  m.untypedOutput("y");
  ir::Graph g = load(m);
  EXPECT_EQ(value(g, "y").type.shape, (ir::Shape{ir::kUnknownDim, 3}));
}

TEST_F(Import, InputShapesBindByNameBeforeBatch) {
  ModelBuilder m;
  m.input("a", {"N", "C"});
  m.input("b", {"N"});
  m.input("c", {"K", "C"});
  m.node("Relu", {"a"}, {"ya"}, "r1");
  m.node("Relu", {"b"}, {"yb"}, "r2");
  m.node("Relu", {"c"}, {"yc"}, "r3");
  m.output("ya", {"N", "C"});
  m.untypedOutput("yb");
  m.untypedOutput("yc");
  ImportOptions o;
  o.inputShapes["a"] = {2, 7};
  o.batch = 9;  // b's leading N is already 2; c's K takes the batch
  ir::Graph g = load(m, o);
  EXPECT_EQ(value(g, "a").type.shape, (ir::Shape{2, 7}));
  EXPECT_EQ(value(g, "b").type.shape, (ir::Shape{2}));
  EXPECT_EQ(value(g, "c").type.shape, (ir::Shape{9, 7}));
  EXPECT_EQ(value(g, "ya").type.shape, (ir::Shape{2, 7}));
}

TEST_F(Import, InputShapeForAnInputWithoutDeclaredShape) {
  ModelBuilder m;
  auto& x = *m.graph().add_input();
  x.set_name("x");
  ModelBuilder::setType(x, onnx::TensorProto::FLOAT, {}, /*withShape=*/false);
  m.node("Relu", {"x"}, {"y"}, "r");
  m.untypedOutput("y");
  ImportOptions o;
  o.inputShapes["x"] = {3, 1};
  ir::Graph g = load(m, o);
  EXPECT_EQ(value(g, "x").type, (ir::TensorType{ir::DType::Float32, {3, 1}, true}));
  EXPECT_EQ(value(g, "y").type, (ir::TensorType{ir::DType::Float32, {3, 1}, true}));
}

TEST_F(Import, EveryAcceptedOpset) {
  for (int64_t opset = 6; opset <= 18; ++opset) {
    ModelBuilder m(opset);
    m.input("x", {1});
    m.node("Relu", {"x"}, {"y"}, "r");
    m.output("y", {1});
    EXPECT_EQ(load(m).opsetVersion, opset);
  }
}

TEST_F(Import, FromBytes) {
  ModelBuilder m;
  m.input("x", {1});
  m.node("Relu", {"x"}, {"y"}, "r");
  m.output("y", {1});
  auto r = onnx_import::importModelFromBytes(m.bytes(), {}, "mem", using_(registry));
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r->numNodes(), 1u);
}

}  // namespace
}  // namespace rammer::test

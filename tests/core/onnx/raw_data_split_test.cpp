// Cutting initializer raw_data out of serialized models must not change what
// protobuf would have parsed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/onnx/importer.h"
#include "core/onnx/raw_data_split.h"
#include "model_builder.h"
#include "test_registry.h"

namespace rammer::test {
namespace {

using ::testing::ElementsAre;
using onnx_import::splitInitializerRawData;

ModelBuilder sample() {
  ModelBuilder m;
  m.input("x", {3});
  m.floatInit("a", {3}, {1.f, 2.f, 3.f});
  m.int64Init("k", {2}, {5, 6});  // typed data, no raw_data
  m.floatInit("e", {0}, {});     // raw_data present but empty
  m.node("Add", {"x", "a"}, {"y"}, "add");
  m.output("y", {3});
  return m;
}

TEST(RawDataSplit, StrippedModelParsesToTheSameModelWithoutPayloads) {
  const ModelBuilder m = sample();
  const std::string bytes = m.bytes();
  auto split = splitInitializerRawData(bytes);
  ASSERT_TRUE(split.has_value());
  ASSERT_EQ(split->initializerRaw.size(), 3u);
  ASSERT_TRUE(split->initializerRaw[0].has_value());
  EXPECT_EQ(*split->initializerRaw[0], m.model.graph().initializer(0).raw_data());
  EXPECT_FALSE(split->initializerRaw[1].has_value());
  ASSERT_TRUE(split->initializerRaw[2].has_value());
  EXPECT_TRUE(split->initializerRaw[2]->empty());
  // The views point into the original buffer: nothing was copied.
  EXPECT_GE(split->initializerRaw[0]->data(), bytes.data());
  EXPECT_LT(split->initializerRaw[0]->data(), bytes.data() + bytes.size());

  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(split->stripped));
  onnx::ModelProto expected = m.model;
  for (auto& t : *expected.mutable_graph()->mutable_initializer()) t.clear_raw_data();
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
  EXPECT_LT(split->stripped.size(), bytes.size());
}

TEST(RawDataSplit, MalformedBytesAreLeftToProtobuf) {
  const std::string bytes = sample().bytes();
  EXPECT_FALSE(splitInitializerRawData(bytes.substr(0, bytes.size() - 3)).has_value());
  EXPECT_FALSE(splitInitializerRawData(std::string(8, '\xff')).has_value());
  EXPECT_FALSE(splitInitializerRawData(std::string("\x0b", 1)).has_value());  // a group start tag
  EXPECT_TRUE(splitInitializerRawData("").has_value());
}

// Protobuf merges a singular message field given twice and keeps the last
// of a repeated scalar field: the split path must agree.
TEST(RawDataSplit, MergedGraphsAndRepeatedRawData) {
  ModelBuilder first = sample();
  onnx::ModelProto second;
  auto* extra = second.mutable_graph()->add_initializer();
  extra->set_name("b");
  extra->set_data_type(onnx::TensorProto::FLOAT);
  extra->add_dims(1);
  extra->set_raw_data(bytesOf(std::vector<float>{9.f}));
  std::string tensorBytes = extra->SerializeAsString();
  // Append a second raw_data (field 9, length 4): this one wins.
  const std::string later = bytesOf(std::vector<float>{-4.f});
  tensorBytes += std::string("\x4a\x04", 2) + later;
  // ModelProto.graph (7) { GraphProto.initializer (5) { tensorBytes } }
  std::string init = std::string("\x2a", 1) + static_cast<char>(tensorBytes.size()) + tensorBytes;
  std::string graph = std::string("\x3a", 1) + static_cast<char>(init.size()) + init;
  const std::string bytes = first.bytes() + graph;

  onnx::ModelProto reference;
  ASSERT_TRUE(reference.ParseFromString(bytes));
  ASSERT_EQ(reference.graph().initializer_size(), 4);
  ASSERT_EQ(reference.graph().initializer(3).raw_data(), later);

  const ops::OpRegistry reg = testRegistry();
  auto r = onnx_import::importModelFromBytes(bytes, {}, "merged.onnx", using_(reg));
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_THAT(r->value(*r->findValue("a")).constant->values<float>(), ElementsAre(1.f, 2.f, 3.f));
  EXPECT_THAT(r->value(*r->findValue("k")).constant->values<int64_t>(), ElementsAre(5, 6));
  EXPECT_THAT(r->value(*r->findValue("b")).constant->values<float>(), ElementsAre(-4.f));
  EXPECT_EQ(r->value(*r->findValue("e")).constant->numel(), 0);
}

}  // namespace
}  // namespace rammer::test

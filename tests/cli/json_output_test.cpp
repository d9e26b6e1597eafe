#include "app/cli/json_output.h"

#include <gtest/gtest.h>

namespace rammer::cli {
namespace {

TEST(JsonOutput, ShapesKeepSymbolicNames) {
  ir::TensorType t{ir::DType::Float32, {ir::kUnknownDim, 3, ir::kUnknownDim}, true};
  EXPECT_EQ(shapeToJson(t, {"batch", "", ""}).dump(), R"(["batch",3,null])");
  EXPECT_EQ(shapeText(t, {"batch", "", ""}), "[batch, 3, ?]");
  EXPECT_TRUE(shapeToJson(ir::TensorType{ir::DType::Float32, {}, false}).is_null());
}

TEST(JsonOutput, SummaryHasTheDocumentedKeysInOrder) {
  ops::ModelSummary s;
  s.opset = 13;
  s.inputs.push_back({"x", {ir::DType::Float32, {1, 4}, true}, {}});
  s.outputs.push_back({"y", {ir::DType::Int64, {1}, true}, {}});
  s.nodeCount = 3;
  s.opHistogram = {{"Relu", 2}, {"Add", 1}};
  s.parameterCount = 10;
  s.parameterBytes = 40;
  s.flops = 1.5e6;
  Json j = summaryToJson(s, "m.onnx");
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  const std::vector<std::string> documented = {"model", "opset", "inputs", "outputs", "nodes", "ops",
                                               "parameters", "parameter_bytes", "flops"};
  for (const auto& k : documented) EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["inputs"][0].dump(), R"({"name":"x","dtype":"float32","shape":[1,4]})");
  EXPECT_EQ(j["outputs"][0]["dtype"], "int64");
  // The histogram keeps its order (most frequent first), not alphabetical.
  EXPECT_EQ(j["ops"].dump(), R"({"Relu":2,"Add":1})");
  EXPECT_EQ(j["flops"].get<double>(), 1.5e6);
  EXPECT_EQ(j["parameter_bytes"], 40);
}

}  // namespace
}  // namespace rammer::cli

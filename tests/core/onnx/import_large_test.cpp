// A model above protobuf's 64 MB default limit loads, with its weights
// intact. (Import speed is measured in tests/bench, not here.)
#include <gtest/gtest.h>

#include "core/onnx/importer.h"
#include "model_builder.h"
#include "test_registry.h"

namespace rammer::test {
namespace {

TEST(ImportLarge, HundredMegabyteModelLoads) {
  constexpr int64_t kRows = 5000, kCols = 5000;  // 25M floats = 100 MB
  ScratchDir dir;
  {
    ModelBuilder m;
    m.input("x", {kRows, kCols});
    std::vector<float> w(static_cast<size_t>(kRows * kCols));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 1000) * 0.5f;
    m.floatInit("W", {kRows, kCols}, w);
    m.node("Add", {"x", "W"}, {"y"}, "add");
    m.output("y", {kRows, kCols});
    m.save(dir / "big.onnx");
  }
  ASSERT_GT(std::filesystem::file_size(dir / "big.onnx"), 64u << 20);
  const ops::OpRegistry reg = testRegistry();
  auto r = onnx_import::importModel(dir / "big.onnx", using_(reg));
  ASSERT_TRUE(r.ok()) << r.errorText();
  const ir::Tensor& w = *r->value(*r->findValue("W")).constant;
  ASSERT_EQ(w.numel(), kRows * kCols);
  EXPECT_EQ(w.values<float>()[1], 0.5f);
  EXPECT_EQ(w.values<float>()[kRows * kCols - 1], static_cast<float>((kRows * kCols - 1) % 1000) * 0.5f);
}

}  // namespace
}  // namespace rammer::test

// Real models exported by PyTorch (the ONNX project's conformance data).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/onnx/importer.h"
#include "test_registry.h"

namespace rammer::test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path conformance() { return fs::path(RAMMER_SHARED_DIR) / "onnx-conformance"; }

const ir::Value& valueNamed(const ir::Graph& g, const std::string& name) {
  auto id = g.findValue(name);
  if (!id) throw std::runtime_error("no value " + name);
  return g.value(*id);
}

// Structure only, with Conv left opaque: passes without the real Conv op.
TEST(ConformanceImport, Conv2dStructure) {
  const fs::path file = conformance() / "pytorch-converted/test_Conv2d/model.onnx";
  if (!fs::exists(file)) GTEST_SKIP() << "no conformance data";
  ops::OpRegistry reg;
  addOpaqueOps(reg, {"Conv"});
  auto r = onnx_import::importModel(file, using_(reg));
  ASSERT_TRUE(r.ok()) << r.errorText();
  const ir::Graph& g = *r;
  EXPECT_EQ(g.opsetVersion, 6);
  ASSERT_EQ(g.inputs().size(), 1u);  // the weights "1" and "2" are initializers, not inputs
  EXPECT_EQ(g.value(g.inputs()[0]).name, "0");
  EXPECT_EQ(g.value(g.inputs()[0]).type, (ir::TensorType{ir::DType::Float32, {2, 3, 7, 5}, true}));
  EXPECT_EQ(valueNamed(g, "1").constant->shape(), (ir::Shape{4, 3, 3, 2}));
  EXPECT_EQ(valueNamed(g, "2").constant->shape(), (ir::Shape{4}));
  ASSERT_EQ(g.numNodes(), 1u);
  EXPECT_EQ(g.node(0).opType, "Conv");
  EXPECT_EQ(g.node(0).attrs.getInts("kernel_shape"), (std::vector<int64_t>{3, 2}));
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.value(g.outputs()[0]).type, (ir::TensorType{ir::DType::Float32, {2, 4, 5, 4}, true}));
}

// Needs the real Conv op (its type inference).
TEST(ConformanceImport, BuiltinConv2d) {
  const fs::path file = conformance() / "pytorch-converted/test_Conv2d/model.onnx";
  if (!fs::exists(file)) GTEST_SKIP() << "no conformance data";
  auto r = onnx_import::importModel(file);
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r->value(r->inputs()[0]).type.shape, (ir::Shape{2, 3, 7, 5}));
  EXPECT_EQ(r->value(r->outputs()[0]).type, (ir::TensorType{ir::DType::Float32, {2, 4, 5, 4}, true}));
}

// Every case either imports or is refused with diagnostics that name the
// file; none crashes.
TEST(ConformanceImport, EveryCaseImportsOrExplains) {
  if (!fs::exists(conformance())) GTEST_SKIP() << "no conformance data";
  int cases = 0, imported = 0;
  for (const auto& suite : fs::directory_iterator(conformance())) {
    if (!suite.is_directory()) continue;
    for (const auto& c : fs::directory_iterator(suite.path())) {
      const fs::path file = c.path() / "model.onnx";
      if (!fs::exists(file)) continue;
      ++cases;
      auto r = onnx_import::importModel(file);
      if (r.ok()) {
        ++imported;
        continue;
      }
      for (const auto& d : r.errors()) {
        EXPECT_EQ(d.file, file.string());
        EXPECT_FALSE(d.message.empty());
      }
    }
  }
  EXPECT_GT(cases, 100);
  std::cout << imported << " of " << cases << " conformance models import with the current ops\n";
}

}  // namespace
}  // namespace rammer::test

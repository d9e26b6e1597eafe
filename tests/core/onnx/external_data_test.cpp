// Initializers stored in files beside the model: read when inside the
// model's folder, refused (with the tensor named) otherwise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/onnx/importer.h"
#include "model_builder.h"
#include "test_registry.h"

namespace rammer::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using onnx_import::ImportOptions;

class ExternalData : public ::testing::Test {
 protected:
  // x + W, where W lives in `location` (relative to the model's folder).
  ModelBuilder model(const std::string& location, std::optional<int64_t> offset = {},
                     std::optional<int64_t> length = {}) {
    ModelBuilder m;
    m.input("x", {2, 2});
    auto* w = m.graph().add_initializer();
    w->set_name("W");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(2);
    w->add_dims(2);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto entry = [&](const char* key, const std::string& value) {
      auto* e = w->add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    entry("location", location);
    if (offset) entry("offset", std::to_string(*offset));
    if (length) entry("length", std::to_string(*length));
    m.node("Add", {"x", "W"}, {"y"}, "add");
    m.output("y", {2, 2});
    return m;
  }
  ir::Result<ir::Graph> import(const ModelBuilder& m, const std::filesystem::path& folder) {
    m.save(folder / "model.onnx");
    return onnx_import::importModel(folder / "model.onnx", using_(registry));
  }
  std::string failure(const ModelBuilder& m) {
    auto r = import(m, dir.path());
    EXPECT_FALSE(r.ok());
    return r.errorText();
  }

  const std::vector<float> weights{1.f, -2.f, 3.5f, 4.f};
  ops::OpRegistry registry = testRegistry();
  ScratchDir dir;
};

TEST_F(ExternalData, ReadsFileInsideTheFolder) {
  std::filesystem::create_directories(dir / "weights");
  writeBytes(dir / "weights" / "w.bin", bytesOf(weights));
  auto r = import(model("weights/w.bin"), dir.path());
  ASSERT_TRUE(r.ok()) << r.errorText();
  const ir::Value& w = r->value(*r->findValue("W"));
  ASSERT_TRUE(w.constant.has_value());
  EXPECT_EQ(w.constant->shape(), (ir::Shape{2, 2}));
  EXPECT_THAT(w.constant->values<float>(), ElementsAre(1.f, -2.f, 3.5f, 4.f));
}

TEST_F(ExternalData, OffsetAndLength) {
  std::string blob = "HEADER--" + bytesOf(weights) + "trailing";
  writeBytes(dir / "all.bin", blob);
  auto r = import(model("all.bin", 8, 16), dir.path());
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_THAT(r->value(*r->findValue("W")).constant->values<float>(), ElementsAre(1.f, -2.f, 3.5f, 4.f));
}

TEST_F(ExternalData, SymlinkInsideTheFolderIsFine) {
  writeBytes(dir / "real.bin", bytesOf(weights));
  std::filesystem::create_symlink(dir / "real.bin", dir / "link.bin");
  auto r = import(model("link.bin"), dir.path());
  ASSERT_TRUE(r.ok()) << r.errorText();
}

TEST_F(ExternalData, DotDotIsRefused) {
  std::filesystem::create_directories(dir / "model");
  writeBytes(dir / "secret.bin", bytesOf(weights));  // exists, still refused
  auto r = import(model("../secret.bin"), dir / "model");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.errorText(), HasSubstr("external data path '../secret.bin' of tensor 'W' leaves the model's folder"));
}

TEST_F(ExternalData, DotDotInTheMiddleIsRefused) {
  std::filesystem::create_directories(dir / "sub");
  writeBytes(dir / "w.bin", bytesOf(weights));
  EXPECT_THAT(failure(model("sub/../w.bin")), HasSubstr("'sub/../w.bin' of tensor 'W' leaves the model's folder"));
}

TEST_F(ExternalData, AbsolutePathIsRefused) {
  writeBytes(dir / "w.bin", bytesOf(weights));
  const std::string abs = (dir / "w.bin").string();
  EXPECT_THAT(failure(model(abs)), HasSubstr("external data path '" + abs + "' of tensor 'W' leaves the model's folder"));
}

TEST_F(ExternalData, SymlinkEscapingTheFolderIsRefused) {
  ScratchDir outside;
  writeBytes(outside / "w.bin", bytesOf(weights));
  std::filesystem::create_symlink(outside / "w.bin", dir / "innocent.bin");
  EXPECT_THAT(failure(model("innocent.bin")),
              HasSubstr("external data path 'innocent.bin' of tensor 'W' leaves the model's folder"));
}

TEST_F(ExternalData, SymlinkedDirectoryEscapingTheFolderIsRefused) {
  ScratchDir outside;
  writeBytes(outside / "w.bin", bytesOf(weights));
  std::filesystem::create_directory_symlink(outside.path(), dir / "data");
  EXPECT_THAT(failure(model("data/w.bin")), HasSubstr("'data/w.bin' of tensor 'W' leaves the model's folder"));
}

TEST_F(ExternalData, MissingFile) {
  EXPECT_THAT(failure(model("absent.bin")), HasSubstr("external data file 'absent.bin' of tensor 'W' does not exist"));
}

TEST_F(ExternalData, ShortFile) {
  writeBytes(dir / "w.bin", bytesOf(weights).substr(0, 10));
  EXPECT_THAT(failure(model("w.bin")),
              HasSubstr("external data file 'w.bin' of tensor 'W' is too short: 10 bytes after offset 0, the tensor "
                        "has dims [2, 2] (16 bytes of float32)"));
}

TEST_F(ExternalData, OffsetPastTheEnd) {
  writeBytes(dir / "w.bin", bytesOf(weights));
  EXPECT_THAT(failure(model("w.bin", 100)), HasSubstr("offset 100 is past the end of the file (16 bytes)"));
}

TEST_F(ExternalData, LengthPastTheEnd) {
  writeBytes(dir / "w.bin", bytesOf(weights));
  EXPECT_THAT(failure(model("w.bin", 4, 16)), HasSubstr("length 16 at offset 4 runs past the end of the file (16 bytes)"));
}

TEST_F(ExternalData, LengthDisagreesWithDims) {
  writeBytes(dir / "w.bin", bytesOf(weights) + bytesOf(weights));
  EXPECT_THAT(failure(model("w.bin", 0, 20)),
              HasSubstr("tensor 'W' has dims [2, 2] (16 bytes of float32) but its external data length is 20 bytes"));
}

TEST_F(ExternalData, MalformedOffset) {
  writeBytes(dir / "w.bin", bytesOf(weights));
  ModelBuilder m = model("w.bin");
  auto* e = m.graph().mutable_initializer(0)->add_external_data();
  e->set_key("offset");
  e->set_value("-4");
  EXPECT_THAT(failure(m), HasSubstr("tensor 'W': external data offset '-4' is not a number"));
}

TEST_F(ExternalData, NulInThePathIsRefused) {
  writeBytes(dir / "w.bin", bytesOf(weights));
  EXPECT_THAT(failure(model(std::string("w.bin") + std::string(1, '\0') + "/../../x")), HasSubstr("contains a NUL character"));
}

TEST_F(ExternalData, DirectoryIsNotAFile) {
  std::filesystem::create_directories(dir / "w.bin");
  EXPECT_THAT(failure(model("w.bin")), HasSubstr("'w.bin' of tensor 'W' is not a regular file"));
}

TEST_F(ExternalData, RefusedWhenLoadedFromBytesWithoutAFolder) {
  auto r = onnx_import::importModelFromBytes(model("w.bin").bytes(), {}, "mem.onnx",
                                             using_(registry));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.errorText(), HasSubstr("tensor 'W' has external data but the model was not loaded from a folder"));
}

}  // namespace
}  // namespace rammer::test

// input_K.pb / output_K.pb files: write, read back, read a folder of them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <numeric>

#include "core/onnx/tensor_file.h"
#include "model_builder.h"

namespace rammer::test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using onnx_import::readTensorDir;
using onnx_import::readTensorFile;
using onnx_import::writeTensorFile;

class TensorFile : public ::testing::Test {
 protected:
  ir::Tensor roundTrip(const ir::Tensor& t, const std::string& name = "v") {
    const auto file = dir / "t.pb";
    auto errs = writeTensorFile(file, t, name);
    EXPECT_TRUE(errs.empty()) << ir::formatDiagnostics(errs);
    auto r = readTensorFile(file);
    EXPECT_TRUE(r.ok()) << r.errorText();
    if (!r.ok()) return {};
    EXPECT_EQ(r->name, name);
    EXPECT_EQ(r->tensor.type(), t.type());
    return std::move(r).value().tensor;
  }
  ScratchDir dir;
};

TEST_F(TensorFile, Float32) {
  auto t = ir::Tensor::fromVector<float>({2, 2}, {1.5f, -0.f, 3e38f, -7.25f});
  EXPECT_THAT(roundTrip(t).values<float>(), ElementsAre(1.5f, -0.f, 3e38f, -7.25f));
}

TEST_F(TensorFile, Int64) {
  auto t = ir::Tensor::fromVector<int64_t>({3}, {INT64_MIN, 0, INT64_MAX});
  EXPECT_THAT(roundTrip(t).values<int64_t>(), ElementsAre(INT64_MIN, 0, INT64_MAX));
}

TEST_F(TensorFile, Float16) {
  ir::Tensor t(ir::DType::Float16, {3});
  t.setDouble(0, 1.0);
  t.setDouble(1, -2.5);
  t.setDouble(2, 65504.0);
  EXPECT_THAT(roundTrip(t).toDoubles(), ElementsAre(1.0, -2.5, 65504.0));
}

TEST_F(TensorFile, Bool) {
  auto t = ir::Tensor::fromVector<bool>({2, 2}, {true, false, false, true});
  EXPECT_THAT(roundTrip(t).values<bool>(), ElementsAre(true, false, false, true));
}

TEST_F(TensorFile, String) {
  ir::Tensor t(ir::DType::String, {2});
  t.strings() = {"one", ""};
  EXPECT_THAT(roundTrip(t).strings(), ElementsAre("one", ""));
}

TEST_F(TensorFile, ScalarWithoutName) {
  auto back = roundTrip(ir::Tensor::scalar<double>(0.1), "");
  EXPECT_EQ(back.rank(), 0);
  EXPECT_EQ(back.values<double>()[0], 0.1);
}

TEST_F(TensorFile, WrittenFileIsAnOnnxTensorProto) {
  ASSERT_TRUE(writeTensorFile(dir / "t.pb", ir::Tensor::fromVector<int32_t>({2}, {3, 4}), "n").empty());
  onnx::TensorProto p;
  std::ifstream in(dir / "t.pb", std::ios::binary);
  ASSERT_TRUE(p.ParseFromIstream(&in));
  EXPECT_EQ(p.name(), "n");
  EXPECT_EQ(p.data_type(), onnx::TensorProto::INT32);
  EXPECT_THAT(p.dims(), ElementsAre(2));
  EXPECT_EQ(p.raw_data(), std::string("\x03\0\0\0\x04\0\0\0", 8));
}

TEST_F(TensorFile, Errors) {
  auto missing = readTensorFile(dir / "absent.pb");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.errorText(), HasSubstr("absent.pb: cannot read: the file does not exist"));

  writeBytes(dir / "junk.pb", std::string(32, '\xff'));
  auto junk = readTensorFile(dir / "junk.pb");
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(junk.errorText(), HasSubstr("junk.pb: is not a valid tensor file: protobuf parse failed"));

  auto bad = onnx::TensorProto();
  bad.set_name("short");
  bad.set_data_type(onnx::TensorProto::FLOAT);
  bad.add_dims(4);
  bad.set_raw_data("abc");
  writeBytes(dir / "short.pb", bad.SerializeAsString());
  auto shortFile = readTensorFile(dir / "short.pb");
  ASSERT_FALSE(shortFile.ok());
  EXPECT_THAT(shortFile.errorText(), HasSubstr("tensor 'short' has dims [4] (16 bytes of float32) but its raw_data holds 3 bytes"));
  EXPECT_EQ(shortFile.errors()[0].file, (dir / "short.pb").string());

  auto unwritable = writeTensorFile(dir / "no" / "such" / "dir.pb", ir::Tensor::scalar<float>(1.f));
  ASSERT_EQ(unwritable.size(), 1u);
  EXPECT_THAT(unwritable[0].message, HasSubstr("cannot open"));
  EXPECT_FALSE(writeTensorFile(dir / "e.pb", ir::Tensor{}).empty());
}

// From bytes in memory (the tensor fuzz target's way in): the same tensor,
// the same messages, and no external data without a folder to confine it.
TEST_F(TensorFile, FromBytes) {
  auto proto = onnx::TensorProto();
  proto.set_name("b");
  proto.set_data_type(onnx::TensorProto::FLOAT);
  proto.add_dims(2);
  proto.add_float_data(1.5f);
  proto.add_float_data(-2.f);
  auto t = onnx_import::readTensorBytes(proto.SerializeAsString(), "mem.pb");
  ASSERT_TRUE(t.ok()) << t.errorText();
  EXPECT_EQ(t->name, "b");
  EXPECT_THAT(t->tensor.values<float>(), ElementsAre(1.5f, -2.f));

  auto junk = onnx_import::readTensorBytes(std::string(32, '\xff'), "junk.pb");
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(junk.errorText(), HasSubstr("junk.pb: is not a valid tensor file: protobuf parse failed"));

  auto external = onnx::TensorProto();
  external.set_name("far");
  external.set_data_type(onnx::TensorProto::FLOAT);
  external.add_dims(1);
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = external.add_external_data();
  location->set_key("location");
  location->set_value("/etc/passwd");
  auto refused = onnx_import::readTensorBytes(external.SerializeAsString(), "far.pb");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.errorText(), HasSubstr("far.pb"));
}

// The fuzz smoke's finding (tests/data/fuzz-regressions): 18 bytes that
// declare a multi-gigabyte int8 tensor with external data. The tensor was
// allocated before the external reference was checked; now the reference
// is refused first and nothing of that size is allocated.
TEST_F(TensorFile, ExternalDataIsCheckedBeforeTheTensorIsAllocated) {
  std::ifstream in(RAMMER_SOURCE_DIR "/tests/data/fuzz-regressions/tensor-external-data-of-gigabytes.pb",
                   std::ios::binary);
  ASSERT_TRUE(in);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 18u);
  onnx::TensorProto proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  ASSERT_EQ(proto.data_location(), onnx::TensorProto::EXTERNAL);
  int64_t declared = 1;
  for (int64_t d : proto.dims()) declared *= d;
  EXPECT_GT(declared, int64_t{1} << 30) << "the reproducer declares gigabytes";
  auto t = onnx_import::readTensorBytes(bytes, "finding.pb");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.errorText(), HasSubstr("finding.pb"));
  EXPECT_THAT(t.errorText(), HasSubstr("external data"));
}

TEST_F(TensorFile, DirReadsUntilTheFirstGap) {
  for (int i : {0, 1, 3}) ASSERT_TRUE(writeTensorFile(dir / ("input_" + std::to_string(i) + ".pb"), ir::Tensor::scalar<int64_t>(i), "in" + std::to_string(i)).empty());
  ASSERT_TRUE(writeTensorFile(dir / "output_0.pb", ir::Tensor::scalar<float>(9.f)).empty());
  auto in = readTensorDir(dir.path());
  ASSERT_TRUE(in.ok()) << in.errorText();
  ASSERT_EQ(in->size(), 2u);
  EXPECT_EQ((*in)[1].name, "in1");
  EXPECT_EQ((*in)[1].tensor.values<int64_t>()[0], 1);
  auto out = readTensorDir(dir.path(), "output");
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].tensor.values<float>()[0], 9.f);
  EXPECT_FALSE(readTensorDir(dir / "absent").ok());
}

TEST_F(TensorFile, ConformanceInputs) {
  // Values checked with numpy (onnx.numpy_helper) on the same file.
  const std::filesystem::path set =
      std::filesystem::path(RAMMER_SHARED_DIR) / "onnx-conformance/pytorch-converted/test_Conv2d/test_data_set_0";
  if (!std::filesystem::exists(set)) GTEST_SKIP() << "no conformance data at " << set;
  auto in = readTensorDir(set);
  ASSERT_TRUE(in.ok()) << in.errorText();
  ASSERT_EQ(in->size(), 1u);
  const ir::Tensor& x = (*in)[0].tensor;
  EXPECT_EQ(x.type(), (ir::TensorType{ir::DType::Float32, {2, 3, 7, 5}, true}));
  EXPECT_FLOAT_EQ(x.values<float>().front(), -0.98211855f);
  EXPECT_FLOAT_EQ(x.values<float>().back(), -0.60569936f);
  const auto v = x.toDoubles();
  EXPECT_NEAR(std::accumulate(v.begin(), v.end(), 0.0), 13.567937267012894, 1e-4);
  auto out = readTensorDir(set, "output");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].tensor.shape(), (ir::Shape{2, 4, 5, 4}));
}

}  // namespace
}  // namespace rammer::test

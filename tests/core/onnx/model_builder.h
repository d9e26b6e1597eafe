#pragma once
// Builds small ONNX models in tests (good and deliberately broken ones) with
// the protobuf classes, plus a scratch folder to write them to.
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

namespace rammer::test {

// A declared dim: a number, or a symbolic name, or unknown (-1 without name).
struct Dim {
  int64_t value = -1;
  std::string param;
  Dim(int64_t v) : value(v) {}         // NOLINT: implicit for brevity
  Dim(const char* p) : param(p) {}     // NOLINT
};

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13, int64_t irVersion = 8) {
    model.set_ir_version(irVersion);
    auto* o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    graph().set_name("test_graph");
  }

  onnx::GraphProto& graph() { return *model.mutable_graph(); }

  static void setType(onnx::ValueInfoProto& vi, int32_t elem, const std::vector<Dim>& dims, bool withShape = true) {
    auto* tt = vi.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    if (!withShape) return;
    auto* shape = tt->mutable_shape();
    for (const Dim& d : dims) {
      auto* dim = shape->add_dim();
      if (!d.param.empty()) dim->set_dim_param(d.param);
      else if (d.value >= 0 || d.value < -1) dim->set_dim_value(d.value);
    }
  }

  onnx::ValueInfoProto& input(const std::string& name, const std::vector<Dim>& dims,
                              int32_t elem = onnx::TensorProto::FLOAT) {
    auto* vi = graph().add_input();
    vi->set_name(name);
    setType(*vi, elem, dims);
    return *vi;
  }
  onnx::ValueInfoProto& output(const std::string& name, const std::vector<Dim>& dims,
                               int32_t elem = onnx::TensorProto::FLOAT) {
    auto* vi = graph().add_output();
    vi->set_name(name);
    setType(*vi, elem, dims);
    return *vi;
  }
  // An output without any declared type (left to inference).
  onnx::ValueInfoProto& untypedOutput(const std::string& name) {
    auto* vi = graph().add_output();
    vi->set_name(name);
    return *vi;
  }

  onnx::TensorProto& floatInit(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<float>& values) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    return *t;
  }
  onnx::TensorProto& int64Init(const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& values) {
    auto* t = graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return *t;
  }

  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = {},
                        const std::string& domain = {}) {
    auto* n = graph().add_node();
    n->set_op_type(op);
    if (!name.empty()) n->set_name(name);
    if (!domain.empty()) n->set_domain(domain);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }

  static void intAttr(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }

  std::string bytes() const { return model.SerializeAsString(); }
  void save(const std::filesystem::path& file) const {
    std::ofstream out(file, std::ios::binary);
    ASSERT_TRUE(model.SerializeToOstream(&out));
  }

  onnx::ModelProto model;
};

// A fresh folder below the system temp dir, removed with its contents.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string tag = info ? std::string(info->test_suite_name()) + "_" + info->name() : "scratch";
    path_ = std::filesystem::temp_directory_path() /
            ("rammer_onnx_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + tag);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void writeBytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <class T>
std::string bytesOf(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

}  // namespace rammer::test

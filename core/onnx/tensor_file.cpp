#include "core/onnx/tensor_file.h"

#include <fstream>

#include <onnx/onnx_pb.h>

#include "core/onnx/proto_parse.h"
#include "core/onnx/proto_tensor.h"

namespace rammer::onnx_import {

namespace fs = std::filesystem;

namespace {

// The parsed proto as a named tensor; errors name `shown`.
ir::Result<NamedTensor> namedTensorOf(onnx::TensorProto& proto, const fs::path& baseDir, const std::string& label,
                                      const std::string& shown) {
  std::string name = proto.name();
  auto t = tensorFromProto(proto, baseDir, label);
  if (!t) {
    auto errs = t.errors();
    for (auto& e : errs) e.file = shown;
    return errs;
  }
  return NamedTensor{std::move(name), std::move(t).value()};
}

}  // namespace

ir::Result<NamedTensor> readTensorFile(const fs::path& file) {
  const std::string shown = file.string();
  onnx::TensorProto proto;
  if (auto why = parseFile(file, proto, "tensor file")) return ir::makeError(*why, {}, shown);
  fs::path baseDir = file.parent_path();
  if (baseDir.empty()) baseDir = ".";
  return namedTensorOf(proto, baseDir, file.filename().string(), shown);
}

ir::Result<NamedTensor> readTensorBytes(const std::string& bytes, const std::string& shown) {
  onnx::TensorProto proto;
  if (auto why = parseBytes(bytes, proto, "tensor file")) return ir::makeError(*why, {}, shown);
  return namedTensorOf(proto, {}, shown, shown);  // no folder: external data is refused
}

std::vector<ir::Diagnostic> writeTensorFile(const fs::path& file, const ir::Tensor& tensor, const std::string& name) {
  const std::string shown = file.string();
  if (tensor.empty()) return {ir::makeError("cannot write an empty (undefined) tensor", {}, shown)};
  const onnx::TensorProto proto = tensorToProto(tensor, name);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) return {ir::makeError("cannot open the file for writing", {}, shown)};
  if (!proto.SerializeToOstream(&out)) return {ir::makeError("could not serialize the tensor", {}, shown)};
  out.close();
  if (!out) return {ir::makeError("could not write the file", {}, shown)};
  return {};
}

ir::Result<std::vector<NamedTensor>> readTensorDir(const fs::path& dir, const std::string& prefix) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return ir::makeError("is not a folder of tensor files", {}, dir.string());
  std::vector<NamedTensor> out;
  for (size_t i = 0;; ++i) {
    const fs::path file = dir / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(file, ec)) break;
    auto t = readTensorFile(file);
    if (!t) return t.errors();
    out.push_back(std::move(t).value());
  }
  return out;
}

}  // namespace rammer::onnx_import

#pragma once
// Tensor data stored beside the model (TensorProto.data_location EXTERNAL).
// Paths are resolved inside the model's folder only: a model must not be
// able to make the importer read arbitrary files.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace rammer::onnx_import {

// Thrown by the tensor conversion helpers; the message names the tensor.
class TensorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExternalRef {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

// Canonical path of `location` below `baseDir`; TensorError for an absolute
// path, a `..` component, a symlink leading outside, or a missing file.
std::filesystem::path resolveExternalPath(const std::string& location, const std::filesystem::path& baseDir,
                                          const std::string& tensorName);

// The file of `ref`, after checking that offset and length fit in it and
// match the tensor's `bytes`. Called before the tensor is allocated: a
// proto of a few bytes can declare a tensor of gigabytes whose data is
// not there (a fuzz finding, tests/data/fuzz-regressions).
std::filesystem::path checkExternalData(const ExternalRef& ref, const std::filesystem::path& baseDir,
                                        const std::string& tensorName, const std::string& what, uint64_t bytes);

// Reads exactly `bytes` bytes of `ref` into `dst`, with the same checks.
void readExternalData(const ExternalRef& ref, const std::filesystem::path& baseDir, const std::string& tensorName,
                      const std::string& what, std::byte* dst, uint64_t bytes);

}  // namespace rammer::onnx_import

#pragma once
// Reads serialized protobuf messages (models, tensor files) from a file or
// from memory, with the size limit raised to protobuf's maximum (2 GiB) so
// models above protobuf's 64 MB default load.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <google/protobuf/message_lite.h>

namespace rammer::onnx_import {

// A whole file's bytes: memory-mapped (read-only) when possible, read into
// memory otherwise. Lets large fields be copied once, straight from the
// page cache.
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes();

  // Why the file cannot be read, or nullopt. `what` names the expected
  // content ("ONNX model") in messages.
  std::optional<std::string> open(const std::filesystem::path& file, const std::string& what);
  std::string_view bytes() const { return view_; }

 private:
  void* map_ = nullptr;
  size_t mapSize_ = 0;
  std::string copy_;  // when the file cannot be mapped
  std::string_view view_;
};

// Why parsing failed, or nullopt.
std::optional<std::string> parseBytes(std::string_view bytes, google::protobuf::MessageLite& msg,
                                      const std::string& what);
std::optional<std::string> parseFile(const std::filesystem::path& file, google::protobuf::MessageLite& msg,
                                     const std::string& what);

}  // namespace rammer::onnx_import

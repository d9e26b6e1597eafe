#include "core/onnx/external_data.h"

#include <algorithm>
#include <fstream>
#include <system_error>

namespace rammer::onnx_import {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void leaves(const std::string& location, const std::string& tensorName) {
  throw TensorError("external data path '" + location + "' of tensor '" + tensorName +
                    "' leaves the model's folder");
}

// True when `inner` is `outer` or lies below it (both canonical).
bool isWithin(const fs::path& inner, const fs::path& outer) {
  auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end();
}

}  // namespace

fs::path resolveExternalPath(const std::string& location, const fs::path& baseDir, const std::string& tensorName) {
  if (location.empty()) throw TensorError("tensor '" + tensorName + "' has external data without a location");
  if (location.find('\0') != std::string::npos)
    throw TensorError("external data path of tensor '" + tensorName + "' contains a NUL character");
  if (baseDir.empty())
    throw TensorError("tensor '" + tensorName + "' has external data but the model was not loaded from a folder");
  const fs::path rel(location);
  // Checked lexically first: these are refused even when the target exists.
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory()) leaves(location, tensorName);
  for (const fs::path& part : rel)
    if (part == "..") leaves(location, tensorName);

  std::error_code ec;
  const fs::path full = baseDir / rel;
  if (!fs::exists(full, ec))
    throw TensorError("external data file '" + location + "' of tensor '" + tensorName + "' does not exist (in " +
                      baseDir.string() + ")");
  // Symlinks inside the folder may still point elsewhere: compare real paths.
  const fs::path realBase = fs::canonical(baseDir, ec);
  if (ec) throw TensorError("cannot resolve the model's folder '" + baseDir.string() + "': " + ec.message());
  const fs::path real = fs::canonical(full, ec);
  if (ec)
    throw TensorError("cannot resolve external data path '" + location + "' of tensor '" + tensorName +
                      "': " + ec.message());
  if (!isWithin(real, realBase)) leaves(location, tensorName);
  if (!fs::is_regular_file(real, ec))
    throw TensorError("external data path '" + location + "' of tensor '" + tensorName + "' is not a regular file");
  return real;
}

fs::path checkExternalData(const ExternalRef& ref, const fs::path& baseDir, const std::string& tensorName,
                           const std::string& what, uint64_t bytes) {
  const fs::path path = resolveExternalPath(ref.location, baseDir, tensorName);
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) throw TensorError("cannot read external data '" + ref.location + "' of tensor '" + tensorName + "': " + ec.message());
  const std::string where = "external data file '" + ref.location + "' of tensor '" + tensorName + "'";
  if (ref.offset > size)
    throw TensorError(where + ": offset " + std::to_string(ref.offset) + " is past the end of the file (" +
                      std::to_string(size) + " bytes)");
  if (ref.length) {
    if (*ref.length > size - ref.offset)
      throw TensorError(where + ": length " + std::to_string(*ref.length) + " at offset " +
                        std::to_string(ref.offset) + " runs past the end of the file (" + std::to_string(size) +
                        " bytes)");
    if (*ref.length != bytes)
      throw TensorError("tensor '" + tensorName + "' has " + what + " but its external data length is " +
                        std::to_string(*ref.length) + " bytes");
  } else if (size - ref.offset < bytes) {
    throw TensorError(where + " is too short: " + std::to_string(size - ref.offset) + " bytes after offset " +
                      std::to_string(ref.offset) + ", the tensor has " + what);
  }
  return path;
}

void readExternalData(const ExternalRef& ref, const fs::path& baseDir, const std::string& tensorName,
                      const std::string& what, std::byte* dst, uint64_t bytes) {
  const fs::path path = checkExternalData(ref, baseDir, tensorName, what, bytes);
  const std::string where = "external data file '" + ref.location + "' of tensor '" + tensorName + "'";
  if (bytes == 0) return;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TensorError("cannot open " + where);
  in.seekg(static_cast<std::streamoff>(ref.offset));
  in.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(bytes));
  if (static_cast<uint64_t>(in.gcount()) != bytes)
    throw TensorError("could not read " + std::to_string(bytes) + " bytes from " + where);
}

}  // namespace rammer::onnx_import

#include "core/onnx/proto_parse.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <system_error>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace rammer::onnx_import {

namespace fs = std::filesystem;
namespace io = google::protobuf::io;

namespace {

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

FileBytes::~FileBytes() {
  if (map_) ::munmap(map_, mapSize_);
}

std::optional<std::string> FileBytes::open(const fs::path& file, const std::string& what) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return "cannot read: the file does not exist";
  if (fs::is_directory(file, ec)) return "cannot read: it is a directory, not a file";
  Fd fd{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return "cannot read: " + std::string(std::strerror(errno));
  const off_t size = ::lseek(fd.fd, 0, SEEK_END);
  if (size == 0) return "is empty, not a valid " + what;
  if (size > 0 && size > static_cast<off_t>(INT_MAX))
    return "is larger than 2 GiB, the protobuf limit; store the weights as external data";
  if (size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (p != MAP_FAILED) {
      map_ = p;
      mapSize_ = static_cast<size_t>(size);
      ::madvise(map_, mapSize_, MADV_SEQUENTIAL);
      view_ = {static_cast<const char*>(map_), mapSize_};
      return std::nullopt;
    }
  }
  // Not mappable or not seekable (a pipe, a special file): read it.
  if (::lseek(fd.fd, 0, SEEK_SET) < 0 && size >= 0) return "cannot read: " + std::string(std::strerror(errno));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return "cannot read: " + std::string(std::strerror(errno));
    }
    if (n == 0) break;
    copy_.append(buf, static_cast<size_t>(n));
    if (copy_.size() > static_cast<size_t>(INT_MAX))
      return "is larger than 2 GiB, the protobuf limit; store the weights as external data";
  }
  if (copy_.empty()) return "is empty, not a valid " + what;
  view_ = copy_;
  return std::nullopt;
}

std::optional<std::string> parseBytes(std::string_view bytes, google::protobuf::MessageLite& msg,
                                      const std::string& what) {
  if (bytes.empty()) return "is empty, not a valid " + what;
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return "is larger than 2 GiB, the protobuf limit; store the weights as external data";
  io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  if (!msg.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return "is not a valid " + what + ": protobuf parse failed (truncated or not a protobuf file)";
  return std::nullopt;
}

std::optional<std::string> parseFile(const fs::path& file, google::protobuf::MessageLite& msg,
                                     const std::string& what) {
  FileBytes bytes;
  if (auto why = bytes.open(file, what)) return why;
  return parseBytes(bytes.bytes(), msg, what);
}

}  // namespace rammer::onnx_import

#include "core/onnx/raw_data_split.h"

#include <cstdint>

namespace rammer::onnx_import {

namespace {

// Field numbers in onnx.proto.
constexpr uint64_t kModelGraph = 7;         // ModelProto.graph
constexpr uint64_t kGraphInitializer = 5;   // GraphProto.initializer
constexpr uint64_t kTensorRawData = 9;      // TensorProto.raw_data
constexpr uint32_t kLengthDelimited = 2;

struct Reader {
  const char* p;
  const char* end;

  std::optional<uint64_t> varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) return std::nullopt;
      const auto byte = static_cast<uint8_t>(*p++);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    return std::nullopt;
  }
};

struct Field {
  uint64_t number;
  uint32_t wireType;
  std::string_view whole;    // tag through payload
  std::string_view tag;      // the tag bytes
  std::string_view payload;  // length-delimited fields only
};

// Reads the next field of a message body; nullopt on anything malformed.
std::optional<Field> nextField(Reader& r) {
  const char* start = r.p;
  auto tag = r.varint();
  if (!tag) return std::nullopt;
  Field f{*tag >> 3, static_cast<uint32_t>(*tag & 7), {}, {start, static_cast<size_t>(r.p - start)}, {}};
  if (f.number == 0) return std::nullopt;
  switch (f.wireType) {
    case 0:
      if (!r.varint()) return std::nullopt;
      break;
    case 1:
    case 5: {
      const size_t n = f.wireType == 1 ? 8 : 4;
      if (static_cast<size_t>(r.end - r.p) < n) return std::nullopt;
      r.p += n;
      break;
    }
    case kLengthDelimited: {
      auto len = r.varint();
      if (!len || *len > static_cast<uint64_t>(r.end - r.p)) return std::nullopt;
      f.payload = {r.p, static_cast<size_t>(*len)};
      r.p += *len;
      break;
    }
    default:
      return std::nullopt;  // groups (3, 4) and invalid wire types
  }
  f.whole = {start, static_cast<size_t>(r.p - start)};
  return f;
}

void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Writes `f` with `body` as its new payload.
void putMessage(std::string& out, const Field& f, const std::string& body) {
  out.append(f.tag);
  putVarint(out, body.size());
  out.append(body);
}

// Rewrites a message body, passing length-delimited fields numbered `target`
// through `rewrite` and copying everything else.
template <class Rewrite>
bool rewriteBody(std::string_view body, uint64_t target, std::string& out, Rewrite rewrite) {
  Reader r{body.data(), body.data() + body.size()};
  while (r.p != r.end) {
    auto f = nextField(r);
    if (!f) return false;
    if (f->number == target && f->wireType == kLengthDelimited) {
      std::string inner;
      if (!rewrite(f->payload, inner)) return false;
      putMessage(out, *f, inner);
    } else {
      out.append(f->whole);
    }
  }
  return true;
}

}  // namespace

std::optional<SplitModel> splitInitializerRawData(std::string_view model) {
  SplitModel split;
  split.stripped.reserve(model.size() < (1 << 20) ? model.size() : (1 << 20));
  // An initializer's body minus its raw_data (a repeated raw_data field is
  // legal protobuf: the last one wins).
  auto tensor = [&](std::string_view body, std::string& out) {
    std::optional<std::string_view> raw;
    Reader r{body.data(), body.data() + body.size()};
    while (r.p != r.end) {
      auto f = nextField(r);
      if (!f) return false;
      if (f->number == kTensorRawData && f->wireType == kLengthDelimited) raw = f->payload;
      else out.append(f->whole);
    }
    split.initializerRaw.push_back(raw);
    return true;
  };
  auto graph = [&](std::string_view body, std::string& out) {
    return rewriteBody(body, kGraphInitializer, out, tensor);
  };
  if (!rewriteBody(model, kModelGraph, split.stripped, graph)) return std::nullopt;
  return split;
}

}  // namespace rammer::onnx_import

#include "core/onnx/proto_tensor.h"

#include <bit>
#include <cstring>

#include "core/onnx/dim_limits.h"
#include "core/onnx/external_data.h"

namespace rammer::onnx_import {

// raw_data is little-endian by the ONNX spec; copying it as-is needs a
// little-endian host.
static_assert(std::endian::native == std::endian::little, "raw_data copies assume a little-endian host");

namespace {

using onnx::TensorProto;

std::string onnxTypeName(int32_t t) {
  if (TensorProto::DataType_IsValid(t)) return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(t));
  return "unknown";
}

// "dims [2, 3] (24 bytes of float32)"
std::string sizeText(const ir::Shape& dims, ir::DType dt, uint64_t bytes) {
  return "dims " + ir::shapeToString(dims) + " (" + std::to_string(bytes) + " bytes of " +
         std::string(ir::dtypeName(dt)) + ")";
}

ExternalRef externalRef(const TensorProto& p, const std::string& name) {
  ExternalRef ref;
  auto number = [&](const std::string& key, const std::string& text) {
    uint64_t v = 0;
    if (text.empty() || text.size() > 19) throw TensorError("tensor '" + name + "': external data " + key + " '" + text + "' is not a number");
    for (char c : text) {
      if (c < '0' || c > '9')
        throw TensorError("tensor '" + name + "': external data " + key + " '" + text + "' is not a number");
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    return v;
  };
  for (const auto& kv : p.external_data()) {
    if (kv.key() == "location") ref.location = kv.value();
    else if (kv.key() == "offset") ref.offset = number("offset", kv.value());
    else if (kv.key() == "length") ref.length = number("length", kv.value());
  }
  return ref;
}

// Copies a typed repeated field, element by element, into the tensor.
template <class Dst, class Field>
void copyRepeated(ir::Tensor& t, const Field& f) {
  Dst* dst = t.data<Dst>();
  for (int i = 0; i < f.size(); ++i) dst[i] = static_cast<Dst>(f.Get(i));
}

// Size of the typed field that holds this dtype's data (when not raw).
int typedFieldSize(const TensorProto& p, ir::DType dt) {
  switch (dt) {
    case ir::DType::Float32: return p.float_data_size();
    case ir::DType::Float64: return p.double_data_size();
    case ir::DType::Int64: return p.int64_data_size();
    case ir::DType::UInt32:
    case ir::DType::UInt64: return p.uint64_data_size();
    case ir::DType::String: return p.string_data_size();
    default: return p.int32_data_size();  // int8..int32, uint8, uint16, bool, float16
  }
}

void copyTyped(ir::Tensor& t, const TensorProto& p) {
  switch (t.dtype()) {
    case ir::DType::Float32: copyRepeated<float>(t, p.float_data()); break;
    case ir::DType::Float64: copyRepeated<double>(t, p.double_data()); break;
    case ir::DType::Int64: copyRepeated<int64_t>(t, p.int64_data()); break;
    case ir::DType::UInt32: copyRepeated<uint32_t>(t, p.uint64_data()); break;
    case ir::DType::UInt64: copyRepeated<uint64_t>(t, p.uint64_data()); break;
    case ir::DType::Int32: copyRepeated<int32_t>(t, p.int32_data()); break;
    case ir::DType::Int16: copyRepeated<int16_t>(t, p.int32_data()); break;
    case ir::DType::Int8: copyRepeated<int8_t>(t, p.int32_data()); break;
    case ir::DType::UInt16: copyRepeated<uint16_t>(t, p.int32_data()); break;
    case ir::DType::UInt8: copyRepeated<uint8_t>(t, p.int32_data()); break;
    case ir::DType::Bool: {
      bool* dst = t.data<bool>();
      for (int i = 0; i < p.int32_data_size(); ++i) dst[i] = p.int32_data(i) != 0;
      break;
    }
    case ir::DType::Float16: {  // the IEEE half bit patterns, one per int32
      std::byte* dst = t.raw();
      for (int i = 0; i < p.int32_data_size(); ++i) {
        const auto bits = static_cast<uint16_t>(p.int32_data(i));
        std::memcpy(dst + 2 * static_cast<size_t>(i), &bits, 2);
      }
      break;
    }
    case ir::DType::String: {
      auto& dst = t.strings();
      for (int i = 0; i < p.string_data_size(); ++i) dst[static_cast<size_t>(i)] = p.string_data(i);
      break;
    }
    case ir::DType::Undefined: break;
  }
}

// Raw bool bytes other than 0 and 1 would be invalid `bool` objects (UB
// when read): any nonzero byte means true.
void normalizeBools(ir::Tensor& t) {
  std::byte* p = t.raw();
  for (size_t i = 0; i < t.byteSize(); ++i) p[i] = p[i] != std::byte{0} ? std::byte{1} : std::byte{0};
}

ir::Tensor convert(TensorProto& p, std::optional<std::string_view> split, const std::filesystem::path& baseDir,
                   const std::string& name) {
  const auto dt = ir::dtypeFromOnnx(p.data_type());
  if (!dt || *dt == ir::DType::Undefined)
    throw TensorError("tensor '" + name + "' has unsupported data type " + std::to_string(p.data_type()) + " (" +
                      onnxTypeName(p.data_type()) + ")");
  if (p.has_segment()) throw TensorError("tensor '" + name + "' is segmented, which is not supported");
  ir::Shape dims(p.dims().begin(), p.dims().end());
  for (int64_t d : dims)
    if (d < 0) throw TensorError("tensor '" + name + "' has a negative dim: " + ir::shapeToString(dims));
  if (auto why = checkDims(dims)) throw TensorError("tensor '" + name + "' has absurd dims: " + *why);
  const int64_t numel = ir::numElements(dims);
  const uint64_t bytes = static_cast<uint64_t>(numel) * ir::dtypeSize(*dt);

  if (p.data_location() == TensorProto::EXTERNAL) {
    if (*dt == ir::DType::String) throw TensorError("tensor '" + name + "': string tensors cannot have external data");
    const ExternalRef ref = externalRef(p, name);
    checkExternalData(ref, baseDir, name, sizeText(dims, *dt, bytes), bytes);  // before allocating
    ir::Tensor t(*dt, dims);
    readExternalData(ref, baseDir, name, sizeText(dims, *dt, bytes), t.raw(), bytes);
    if (*dt == ir::DType::Bool) normalizeBools(t);
    return t;
  }

  if (split || p.has_raw_data()) {
    if (*dt == ir::DType::String) throw TensorError("tensor '" + name + "': string tensors cannot use raw_data");
    const std::string_view raw = split ? *split : std::string_view(p.raw_data());
    if (raw.size() != bytes)
      throw TensorError("tensor '" + name + "' has " + sizeText(dims, *dt, bytes) + " but its raw_data holds " +
                        std::to_string(raw.size()) + " bytes");
    ir::Tensor t(*dt, dims);
    if (bytes) std::memcpy(t.raw(), raw.data(), bytes);
    if (!split) std::string().swap(*p.mutable_raw_data());  // the tensor holds the only copy from now on
    if (*dt == ir::DType::Bool) normalizeBools(t);
    return t;
  }

  const int count = typedFieldSize(p, *dt);
  if (count != numel)
    throw TensorError("tensor '" + name + "' has dims " + ir::shapeToString(dims) + " (" + std::to_string(numel) +
                      " elements of " + std::string(ir::dtypeName(*dt)) + ") but its data holds " +
                      std::to_string(count) + " elements");
  ir::Tensor t(*dt, dims);
  copyTyped(t, p);
  return t;
}

}  // namespace

ir::Result<ir::Tensor> tensorFromProto(TensorProto& proto, const std::filesystem::path& baseDir,
                                       const std::string& name) {
  return tensorFromSplitProto(proto, std::nullopt, baseDir, name);
}

ir::Result<ir::Tensor> tensorFromSplitProto(TensorProto& proto, std::optional<std::string_view> rawData,
                                       const std::filesystem::path& baseDir, const std::string& name) {
  const std::string shown = proto.name().empty() ? name : proto.name();
  try {
    return convert(proto, rawData, baseDir, shown);
  } catch (const TensorError& e) {
    return ir::makeError(e.what());
  } catch (const std::exception& e) {  // e.g. bad_alloc on a huge but in-limit tensor
    return ir::makeError("tensor '" + shown + "': " + e.what());
  }
}

TensorProto tensorToProto(const ir::Tensor& tensor, const std::string& name) {
  TensorProto p;
  if (!name.empty()) p.set_name(name);
  p.set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t d : tensor.shape()) p.add_dims(d);
  if (tensor.dtype() == ir::DType::String) {
    for (const std::string& s : tensor.strings()) p.add_string_data(s);
  } else {
    p.set_raw_data(reinterpret_cast<const char*>(tensor.raw()), tensor.byteSize());
  }
  return p;
}

}  // namespace rammer::onnx_import

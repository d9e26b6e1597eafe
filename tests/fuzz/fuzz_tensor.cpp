// Serialized onnx.TensorProto bytes (input_K.pb): read into a tensor or
// refused with a message.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/onnx/tensor_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)rammer::onnx_import::readTensorBytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.pb");
  return 0;
}

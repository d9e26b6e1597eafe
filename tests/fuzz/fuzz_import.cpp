// ONNX bytes -> import -> the graph passes. Bad input must come back as
// diagnostics: a crash, a sanitizer report or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rammer;
  auto graph = onnx_import::importModelFromBytes(std::string(reinterpret_cast<const char*>(data), size), {}, "fuzz.onnx");
  if (!graph) return 0;
  passes::PassContext ctx;
  (void)passes::standardPipeline({.fuseAttention = true}).run(*graph, ctx);
  return 0;
}

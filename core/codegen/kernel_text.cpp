#include "core/codegen/kernel_text.h"

#include <fmt/format.h>

#include <algorithm>

namespace rammer::codegen {

std::string launchBounds(const CodegenOptions& options, int threads, int blocksPerSM) {
  return options.target != Target::Hip ? fmt::format("__launch_bounds__({}, {})", threads, std::max(1, blocksPerSM))
                                       : fmt::format("__launch_bounds__({})", threads);
}

int minResidentBlocks(int gridBlocks, int veusPerSM, int sms) {
  const int filled = (std::max(gridBlocks, 1) + std::max(sms, 1) - 1) / std::max(sms, 1);
  return std::max(1, std::min(veusPerSM, filled));
}

std::string scratchOf(int64_t residentBytes) {
  return residentBytes > 0 ? fmt::format("(rammer_smem + {})", residentBytes / 4) : "rammer_smem";
}

std::string residentBegin(int64_t residentBytes, const std::string& indent) {
  return residentBytes > 0 ? fmt::format("{}rammer_resident_begin({}, tid);\n", indent, scratchOf(residentBytes)) : "";
}

std::string execSwitch(const std::string& kernel, const std::set<int32_t>& fns) {
  std::string s = fmt::format(
      "static __device__ __forceinline__ void {}_exec(int fn, int rtask, int tid, float* smem, float* const* b, const "
      "int* a) {{\n"
      "  switch (fn) {{\n",
      kernel);
  for (int32_t fn : fns) s += fmt::format("    case {0}: rammer_fn{0}(rtask, tid, smem, b, a); break;\n", fn);
  s += "    default: break;\n  }\n}\n";
  return s;
}

}  // namespace rammer::codegen

#include "core/runtime/ptxas_log.h"

#include <regex>
#include <sstream>

namespace rammer::runtime {

namespace {

// The number in front of `unit` ("512 bytes smem" -> 512), or -1.
int64_t numberBefore(const std::string& line, const std::string& unit) {
  const std::regex re("(\\d+) " + unit);
  std::smatch m;
  if (!std::regex_search(line, m, re)) return -1;
  return std::stoll(m[1].str());
}

}  // namespace

std::map<std::string, KernelResourceUsage> parsePtxasLog(const std::string& log) {
  std::map<std::string, KernelResourceUsage> out;
  const std::regex entry("Compiling entry function '([^']+)'");
  const std::regex properties("Function properties for (\\S+)");
  // "Function properties for X" names the function the next stack/spill line
  // belongs to (entry functions and non-inlined device functions alike);
  // "Used N registers" always belongs to the entry function being compiled.
  std::string compiling, described;
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      compiling = m[1].str();
      out[compiling];
      continue;
    }
    if (std::regex_search(line, m, properties)) {
      described = m[1].str();
      continue;
    }
    if (line.find("stack frame") != std::string::npos) {
      auto it = out.find(described);
      if (it == out.end()) continue;  // a device function's frame
      it->second.stackBytes = std::max<int64_t>(0, numberBefore(line, "bytes stack frame"));
      it->second.spillStoreBytes = std::max<int64_t>(0, numberBefore(line, "bytes spill stores"));
      it->second.spillLoadBytes = std::max<int64_t>(0, numberBefore(line, "bytes spill loads"));
      continue;
    }
    if (line.find("Used ") != std::string::npos && !compiling.empty()) {
      KernelResourceUsage& u = out[compiling];
      u.registers = static_cast<int>(std::max<int64_t>(0, numberBefore(line, "registers")));
      u.staticSharedBytes = std::max<int64_t>(0, numberBefore(line, "bytes smem"));
      u.barriers = static_cast<int>(std::max<int64_t>(0, numberBefore(line, "barriers")));
    }
  }
  return out;
}

}  // namespace rammer::runtime

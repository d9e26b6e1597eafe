#include "core/runtime/ptxas_log.h"

#include <algorithm>
#include <cctype>
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

// Stack frame and spills from a "... bytes stack frame, ..." line.
void readFrame(const std::string& line, KernelResourceUsage& u) {
  u.stackBytes = std::max<int64_t>(0, numberBefore(line, "bytes stack frame"));
  u.spillStoreBytes = std::max<int64_t>(0, numberBefore(line, "bytes spill stores"));
  u.spillLoadBytes = std::max<int64_t>(0, numberBefore(line, "bytes spill loads"));
}

}  // namespace

std::string functionBaseName(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  size_t i = 2;
  const bool nested = i < mangled.size() && mangled[i] == 'N';
  if (nested) ++i;
  std::string last;
  // <length><identifier> components (a nested name ends at 'E').
  while (i < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[i]))) {
    size_t len = 0;
    while (i < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[i])))
      len = len * 10 + static_cast<size_t>(mangled[i++] - '0');
    if (len == 0 || i + len > mangled.size()) return mangled;
    last = mangled.substr(i, len);
    i += len;
    if (!nested) break;
  }
  return last.empty() ? mangled : last;
}

std::map<std::string, KernelResourceUsage> parsePtxasFunctions(const std::string& log) {
  const std::map<std::string, KernelResourceUsage> entries = parsePtxasLog(log);
  std::map<std::string, KernelResourceUsage> out;
  const std::regex properties("Function properties for (\\S+)");
  std::istringstream in(log);
  std::string line, described;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, properties)) {
      described = entries.count(m[1].str()) ? std::string() : m[1].str();
      continue;
    }
    if (!described.empty() && line.find("stack frame") != std::string::npos) {
      readFrame(line, out[functionBaseName(described)]);
      described.clear();
    }
  }
  return out;
}

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
      if (it == out.end()) continue;  // a device function's frame (parsePtxasFunctions)
      readFrame(line, it->second);
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

#include "app/cli/memory_option.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace rammer::cli {

std::optional<int64_t> parseByteSize(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number) || number <= 0) return std::nullopt;
  std::string unit(end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() == 2 && unit[1] == 'B') unit.pop_back();  // "GB" as "G"
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K") scale = 1e3;
  else if (unit == "M") scale = 1e6;
  else if (unit == "G") scale = 1e9;
  else if (unit == "T") scale = 1e12;
  else return std::nullopt;
  const double bytes = number * scale;
  if (bytes < 1e3 || bytes > 9e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(bytes));
}

void addMaxMemoryOption(CLI::App* cmd, int64_t& bytes) {
  cmd->add_option_function<std::string>(
         "--max-memory",
         [&bytes](const std::string& v) {
           auto parsed = parseByteSize(v);
           if (!parsed)
             throw CLI::ValidationError("--max-memory",
                                        "'" + v + "' is not a size such as 512M, 8G or 1.5GB (at least 1K)");
           bytes = *parsed;
         },
         "Memory the CPU side of the run may use (random inputs, reference, emulator, host), e.g. 8G; a model whose "
         "tensors would need more is refused before anything is allocated (default: half this machine's memory)")
      ->type_name("SIZE");
}

}  // namespace rammer::cli

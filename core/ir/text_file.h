#pragma once
// A text file compiled into the binary (cmake: rammer_embed_texts): device
// presets, the host target's prelude and runtime, the CUDA rKernel bodies.
#include <string_view>
#include <vector>

namespace rammer::ir {

struct TextFile {
  std::string_view name;  // "h100", "rammer_host.h", "gemm_mainloop.cuh"
  std::string_view text;
};

// The text of the file called `name`; empty when there is none.
inline std::string_view findTextFile(const std::vector<TextFile>& files, std::string_view name) {
  for (const TextFile& f : files)
    if (f.name == name) return f.text;
  return {};
}

}  // namespace rammer::ir

#include "core/codegen/host_sources.h"

namespace rammer::codegen {

std::string_view hostSource(std::string_view name) {
  for (const HostSourceFile& f : hostSourceFiles())
    if (name == f.name) return f.text;
  return {};
}

}  // namespace rammer::codegen

#include "core/codegen/host_sources.h"

namespace rammer::codegen {

std::string_view hostSource(std::string_view name) { return ir::findTextFile(hostSourceFiles(), name); }

}  // namespace rammer::codegen

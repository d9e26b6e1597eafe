#pragma once
// Registers per kernel read from a cubin (an ELF file), independently of
// ptxas's log: a second reading the two can be checked against.
#include <map>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"

namespace rammer::runtime {

// The EIATTR_REGCOUNT records of the cubin's .nv.info section, keyed by the
// kernel's symbol name. An error for a file that is not a 64-bit
// little-endian ELF or whose sections or records run past its end.
ir::Result<std::map<std::string, int>> readCubinRegisterCounts(const std::vector<char>& cubin);

}  // namespace rammer::runtime

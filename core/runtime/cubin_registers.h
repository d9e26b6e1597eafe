#pragma once
// Registers per kernel read from a cubin (an ELF file), independently of
// ptxas's log: a second reading the two can be checked against.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"

namespace rammer::runtime {

// The EIATTR_REGCOUNT records of the cubin's .nv.info section, keyed by the
// kernel's symbol name. An error for a file that is not a 64-bit
// little-endian ELF or whose sections or records run past its end.
ir::Result<std::map<std::string, int>> readCubinRegisterCounts(const std::vector<char>& cubin);

// Static __shared__ bytes per kernel: the size of its .nv.shared.<name>
// section (kernels with none have no entry). An upper bound: sm_90 cubins
// lay the 1 KB the system reserves per block out in front of the kernel's
// own arrays. Same errors as above.
ir::Result<std::map<std::string, int64_t>> readCubinStaticShared(const std::vector<char>& cubin);

}  // namespace rammer::runtime

#pragma once
// Pieces of kernel text every kind of generated kernel shares: the ABI's
// parameter list (generated_program.h), the launch bounds, and the switch
// that calls a program's rKernel functions.
#include <cstdint>
#include <set>
#include <string>

#include "core/codegen/generated_program.h"

namespace rammer::codegen {

inline constexpr const char* kKernelSignature =
    "(float* const* buffers, unsigned long long* steps,\n"
    "    unsigned long long epoch, unsigned long long* timing, int launch)";

// CUDA: `blocksPerSM` (the plan's vEUs per SM) as the minimum resident
// blocks, so the compiler keeps registers low enough for the planned
// occupancy. HIP's second argument means something else; it gets the block
// size only. The host target keeps CUDA's text (its prelude ignores it).
std::string launchBounds(const CodegenOptions& options, int threads, int blocksPerSM);

// The blocks per SM a persistent kernel of `gridBlocks` vEUs needs resident
// on a device of `sms` SMs: as many as the plan put on an SM, but no more
// than its vEUs fill (every block resident is the only requirement).
int minResidentBlocks(int gridBlocks, int veusPerSM, int sms);

// The rKernels' shared memory in a kernel whose blocks keep a resident
// region of `residentBytes` at the start (0: all of it), and the statement
// that starts each block with the region empty (gemv_cell.cuh's
// rammer_resident_begin; nothing without a region).
std::string scratchOf(int64_t residentBytes);
std::string residentBegin(int64_t residentBytes, const std::string& indent);

// `NAME_exec(fn, rtask, tid, smem, b, a)`: a switch over the function
// groups `fns` only (rammer_fnN).
std::string execSwitch(const std::string& kernel, const std::set<int32_t>& fns);

}  // namespace rammer::codegen

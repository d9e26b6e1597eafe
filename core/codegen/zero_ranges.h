#pragma once
// Where the buffers that launches clear before they run (split-K outputs,
// which rTasks accumulate into) live, so that one launch clears them with
// few memsets.
//
// Why: a persistent rProgram of an RNN holds hundreds of split-K GEMMs.
// Cleared one buffer at a time, lstm_tc's wavefront plan issued 1,000
// memsets per run, about 1.3 ms on an H100 (2026-11-27 lease) before a
// kernel of 6.8 ms. Laid out side by side in one arena, the buffers one
// launch clears merge into one range. The GPU runtime (cuda_runner.cpp)
// and the exported projects' harness (manifest lines "arena" and "clear")
// lay them out so.
#include <cstdint>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"

namespace rammer::codegen {

struct WordRange {
  int64_t offset = 0;  // in float words from the arena's start
  int64_t words = 0;
};

struct ZeroLayout {
  static constexpr int64_t kAlignWords = 64;  // 256 bytes, as cuMemAlloc aligns
  std::vector<int64_t> arenaOffset;           // per buffer's storage: its offset, -1 when not in the arena
  int64_t arenaWords = 0;
  std::vector<std::vector<WordRange>> clears;  // per launch, ascending, adjacent ones merged
};

// Every storage some launch clears gets a place in the arena (in buffer
// order); a view is cleared at its storage's place. Errors name a launch
// that clears a buffer that does not exist.
ir::Result<ZeroLayout> layOutZeroedBuffers(const std::vector<codegen::BufferInfo>& buffers,
                                           const std::vector<codegen::KernelLaunch>& launches);

}  // namespace rammer::codegen

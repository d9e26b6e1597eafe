#pragma once
// A measured trace as the lease recorder commits it (tests/data/gpu_traces/
// README.md, "rammer-measured-trace" version 1): per rTask its operator,
// rTask id, program, vEU, order, SM (%smid) and %globaltimer start and
// duration in nanoseconds, columns delta-coded where named in `tasks.delta`;
// per launch its program, vEUs and times; `other` with the card, total and
// SM efficiency. Files are plain JSON or xz-compressed (the committed ones:
// a lease's traces fit the repository only compressed).
//
// The file does not hold the plan: ops are known by index and name, with the
// rKernel each ran, so a measured trace opens on its own (a timeline of what
// the GPU did) and beside a plan of the same model, matched by op name.
// Barrier waits are not stored; they are the gaps between a vEU's rTasks.
#include <filesystem>
#include <string>

#include "core/ir/diagnostic.h"
#include "core/sim/trace.h"

namespace rammer::sim {

inline constexpr const char* kMeasuredTraceFormat = "rammer-measured-trace";

// The Trace in `text` (JSON); `source` names it in messages.
ir::Result<Trace> parseMeasuredTrace(const std::string& text, const std::string& source);
// Reads `file`, decompressing it first when it is xz (by its magic bytes,
// not its name). A file that would decompress past `maxBytes` is refused.
ir::Result<Trace> loadMeasuredTrace(const std::filesystem::path& file, size_t maxBytes = size_t{1} << 30);

// `measured` with its op indices renumbered to `plan`'s ops of the same
// name, so it lies beside the plan's predicted trace (timeline, metrics,
// comparison). The rTasks of ops the plan lacks are dropped; `dropped`
// counts them. Kernel names stay the measured ones: what ran.
Trace alignToPlan(Trace measured, const schedule::Plan& plan, size_t* dropped = nullptr);

// xz data decompressed, or an error naming why (corrupt, truncated, too big).
ir::Result<std::string> decompressXz(const std::string& data, size_t maxBytes);
// `file`'s text, decompressed first when it is xz (by its magic bytes): how
// a lease's files are read. Errors name `what` ("measured trace") and the file.
ir::Result<std::string> readPossiblyXz(const std::filesystem::path& file, size_t maxBytes, const std::string& what);

}  // namespace rammer::sim

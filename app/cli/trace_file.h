#pragma once
// --trace FILE for every subcommand that has a trace (schedule, run on the
// emulator, the host target or the GPU): Chrome trace JSON, or CliError
// naming the file when it cannot be written.
#include <string>

#include "core/sim/trace.h"

namespace rammer::cli {

void writeTraceFile(const std::string& file, const sim::Trace& trace);

}  // namespace rammer::cli

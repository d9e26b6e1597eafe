#include "app/cli/trace_file.h"

#include <fstream>

#include "app/cli/cli_support.h"
#include "core/sim/chrome_trace.h"

namespace rammer::cli {

void writeTraceFile(const std::string& file, const sim::Trace& trace) {
  std::ofstream out(file, std::ios::binary);
  if (!out) throw CliError(file + ": cannot write the trace file");
  sim::writeChromeTrace(trace, out);
  out.close();
  if (!out) throw CliError(file + ": cannot write the trace file");
}

}  // namespace rammer::cli

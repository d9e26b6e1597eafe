// rammer schedule: being written (issue #4/#5); refuses to run until then.
#include "app/cli/commands.h"

namespace rammer::cli {

Command addScheduleCommand(CLI::App& app, const GlobalOptions&) {
  CLI::App* cmd = app.add_subcommand("schedule", "(not yet available)");
  return Command{cmd, [] () -> int { throw CliError("rammer schedule is not available in this build yet"); }};
}

}  // namespace rammer::cli

// rammer profile: being written (issue #4/#5); refuses to run until then.
#include "app/cli/commands.h"

namespace rammer::cli {

Command addProfileCommand(CLI::App& app, const GlobalOptions&) {
  CLI::App* cmd = app.add_subcommand("profile", "(not yet available)");
  return Command{cmd, [] () -> int { throw CliError("rammer profile is not available in this build yet"); }};
}

}  // namespace rammer::cli

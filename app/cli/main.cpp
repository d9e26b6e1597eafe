// rammer: the command-line face of Rammer Studio. Subcommands live in their
// own files; this only wires them and maps failures to exit codes
// (0 ok, 1 bad input, 2 usage).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <sstream>
#include <vector>

#include "app/cli/commands.h"

namespace {

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;

void printError(const std::string& message) {
  // One prefix per line so multi-diagnostic messages stay greppable.
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) fmt::print(stderr, "rammer: error: {}\n", line);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rammer::cli;
  CLI::App app("Rammer Studio command-line tool: inspect and run ONNX models", "rammer");
  app.set_version_flag("--version", "rammer " RAMMER_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global flags are accepted after the subcommand too

  GlobalOptions global;
  app.add_flag("-q,--quiet", global.quiet, "No progress messages on stderr");
  std::vector<Command> commands = {addInfoCommand(app, global), addRunCommand(app, global),
                                  addScheduleCommand(app, global), addExportCommand(app, global),
                                  addProfileCommand(app, global), addCompareCommand(app, global),
                                  addCalibrateCommand(app, global)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    printError(e.what());
    fmt::print(stderr, "Run with --help for more information.\n");
    return kExitUsage;
  } catch (const CliError& e) {  // a value an option's own check refused (--policy)
    printError(e.what());
    return kExitBadInput;
  }

  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const CliError& e) {
    printError(e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    printError(std::string("internal error: ") + e.what());
    return kExitBadInput;
  }
  return kExitUsage;
}

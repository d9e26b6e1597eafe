#pragma once
// The subcommands of `rammer`, one file each.
#include <CLI/CLI.hpp>

#include "app/cli/cli_support.h"

namespace rammer::cli {

Command addInfoCommand(CLI::App& app, const GlobalOptions& global);
Command addRunCommand(CLI::App& app, const GlobalOptions& global);
Command addScheduleCommand(CLI::App& app, const GlobalOptions& global);
Command addExportCommand(CLI::App& app, const GlobalOptions& global);
Command addProfileCommand(CLI::App& app, const GlobalOptions& global);
Command addCompareCommand(CLI::App& app, const GlobalOptions& global);
Command addCalibrateCommand(CLI::App& app, const GlobalOptions& global);

}  // namespace rammer::cli

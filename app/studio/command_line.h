#pragma once
// rammer-studio's command line:
//   rammer-studio [MODEL] [--policy P] [--device D] [--batch N] [--quit-after-load]
// --quit-after-load (smoke tests, scripts): load, schedule and simulate
// MODEL, print one "loaded ..." line and exit 0, or print the error and
// exit 1; no dialogs.
#include <QString>
#include <QStringList>
#include <cstdint>

namespace rammer::studio {

struct StudioCommandLine {
  QString model;   // empty: start without a model
  QString policy;  // empty: the remembered or default policy
  QString device;
  int64_t batch = 1;
  bool quitAfterLoad = false;
  QString error;  // a usage error to print (exit 2); empty when fine
};

// `arguments` as QCoreApplication::arguments() (program name first).
// --help and --version print and exit, like any Qt tool.
StudioCommandLine parseCommandLine(const QStringList& arguments);

}  // namespace rammer::studio

#pragma once
// rammer-studio's command line:
//   rammer-studio [MODEL] [--policy P] [--device D] [--batch N] [--quit-after-load]
//                 [--measured TRACE] [--screenshot FILE.png [--view main|graph|timeline|teach|compare] [--size WxH]]
// --quit-after-load (smoke tests, scripts): load, schedule and simulate
// MODEL, print one "loaded ..." line and exit 0, or print the error and
// exit 1; no dialogs. --screenshot renders a view of MODEL to a PNG and
// exits the same way (app/studio/headless_run.h). --measured opens a measured
// trace (File > Open Measured Trace) beside MODEL's plan once it is loaded,
// before either.
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

#include "app/studio/headless_run.h"

namespace rammer::studio {

struct StudioCommandLine {
  QString model;   // empty: start without a model
  QString policy;  // empty: the remembered or default policy
  QString device;
  int64_t batch = 1;
  bool quitAfterLoad = false;
  QString measured;  // a measured trace to open beside the plan; empty: none
  std::optional<ScreenshotRequest> screenshot;
  QString error;  // a usage error to print (exit 2); empty when fine
};

// `arguments` as QCoreApplication::arguments() (program name first).
// --help and --version print and exit, like any Qt tool.
StudioCommandLine parseCommandLine(const QStringList& arguments);

}  // namespace rammer::studio

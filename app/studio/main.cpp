// rammer-studio [MODEL] [--policy P] [--device D] [--batch N] [--quit-after-load]
//               [--measured TRACE] [--screenshot FILE.png [--view V] [--size WxH]]
#include <QApplication>
#include <QTemporaryDir>
#include <cstdio>

#include "app/studio/command_line.h"
#include "app/studio/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Rammer"));
  QApplication::setApplicationName(QStringLiteral("rammer-studio"));
  QApplication::setApplicationVersion(QStringLiteral(RAMMER_VERSION));

  const rammer::studio::StudioCommandLine commandLine = rammer::studio::parseCommandLine(QApplication::arguments());
  if (!commandLine.error.isEmpty()) {
    std::fprintf(stderr, "rammer-studio: error: %s (see --help)\n", qPrintable(commandLine.error));
    return 2;
  }

  rammer::studio::MainWindowOptions options;
  options.quitAfterLoad = commandLine.quitAfterLoad;
  options.screenshot = commandLine.screenshot;
  // A smoke run or a screenshot leaves the person's layout and recent files alone.
  QTemporaryDir scratch;
  if ((options.quitAfterLoad || options.screenshot) && scratch.isValid())
    options.settingsFile = scratch.filePath(QStringLiteral("studio.ini"));

  rammer::studio::MainWindow window(options);
  window.show();
  window.applyCommandLine(commandLine);
  return QApplication::exec();
}

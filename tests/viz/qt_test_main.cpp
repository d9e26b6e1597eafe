// main() of the viz test binaries: a Qt application exists for the whole
// run (models need an event loop for queued signals, widgets a GUI). Without
// a display the offscreen platform is used, also when ctest discovers the
// tests at build time.
#include <gtest/gtest.h>

#ifdef RAMMER_VIZ_WIDGETS
#include <QApplication>
using TestApplication = QApplication;
#else
#include <QCoreApplication>
using TestApplication = QCoreApplication;
#endif

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  TestApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

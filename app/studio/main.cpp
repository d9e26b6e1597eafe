// rammer-studio [MODEL]: the (placeholder) Rammer Studio window.
#include <QApplication>
#include <QCommandLineParser>

#include "app/studio/summary_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("rammer-studio"));
  QApplication::setApplicationVersion(QStringLiteral(RAMMER_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Rammer Studio: inspect ONNX models"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("ONNX model to open"), QStringLiteral("[MODEL]"));
  QCommandLineOption quitAfterLoad(QStringLiteral("quit-after-load"),
                                   QStringLiteral("Load MODEL, print a line (or the error) and quit (smoke tests)"));
  parser.addOption(quitAfterLoad);
  parser.process(app);

  const QStringList args = parser.positionalArguments();
  const bool quit = parser.isSet(quitAfterLoad);
  if (quit && args.isEmpty()) parser.showHelp(2);

  rammer::studio::SummaryWindow window(quit);
  window.show();
  if (!args.isEmpty()) window.openModel(args.first());
  return QApplication::exec();
}

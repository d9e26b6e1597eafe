#include "app/studio/command_line.h"

#include <QCommandLineParser>

namespace rammer::studio {

StudioCommandLine parseCommandLine(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Rammer Studio: compile an ONNX model the Rammer way, inspect and run its schedule"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("ONNX model to open"), QStringLiteral("[MODEL]"));
  QCommandLineOption quit(QStringLiteral("quit-after-load"),
                          QStringLiteral("Load, schedule and simulate MODEL, print one line (or the error) and quit"));
  QCommandLineOption policy(QStringLiteral("policy"), QStringLiteral("Scheduling policy (default wavefront)"),
                            QStringLiteral("POLICY"));
  QCommandLineOption device(QStringLiteral("device"), QStringLiteral("Device preset or JSON file (default h100)"),
                            QStringLiteral("DEVICE"));
  QCommandLineOption batch(QStringLiteral("batch"), QStringLiteral("Bind symbolic batch dims to N (default 1)"),
                           QStringLiteral("N"), QStringLiteral("1"));
  parser.addOptions({quit, policy, device, batch});

  StudioCommandLine out;
  if (!parser.parse(arguments)) {
    out.error = parser.errorText();
    return out;
  }
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
  if (parser.isSet(QStringLiteral("version"))) parser.showVersion();
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    out.error = QStringLiteral("one MODEL at most, got %1").arg(positional.size());
    return out;
  }
  out.model = positional.value(0);
  out.policy = parser.value(policy);
  out.device = parser.value(device);
  bool ok = false;
  out.batch = parser.value(batch).toLongLong(&ok);
  if (!ok || out.batch < 1) out.error = QStringLiteral("--batch must be a positive integer, not '%1'").arg(parser.value(batch));
  out.quitAfterLoad = parser.isSet(quit);
  if (out.quitAfterLoad && out.model.isEmpty() && out.error.isEmpty())
    out.error = QStringLiteral("--quit-after-load needs a MODEL");
  return out;
}

}  // namespace rammer::studio

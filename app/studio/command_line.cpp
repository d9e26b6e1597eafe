#include "app/studio/command_line.h"

#include <QCommandLineParser>

#include "core/schedule/policy_registry.h"

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
  QCommandLineOption policy(QStringLiteral("policy"), QStringLiteral("Scheduling policy (default %1)").arg(QString::fromStdString(rammer::schedule::defaultPolicyName())),
                            QStringLiteral("POLICY"));
  QCommandLineOption device(QStringLiteral("device"), QStringLiteral("Device preset or JSON file (default h100)"),
                            QStringLiteral("DEVICE"));
  QCommandLineOption batch(QStringLiteral("batch"), QStringLiteral("Bind symbolic batch dims to N (default 1)"),
                           QStringLiteral("N"), QStringLiteral("1"));
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Render a view of MODEL once it is scheduled to FILE (PNG) and quit"),
                                QStringLiteral("FILE"));
  QCommandLineOption view(QStringLiteral("view"),
                          QStringLiteral("With --screenshot: %1 (default main)").arg(screenshotViews().join(QLatin1String(", "))),
                          QStringLiteral("VIEW"), QStringLiteral("main"));
  QCommandLineOption size(QStringLiteral("size"), QStringLiteral("With --screenshot: window size (default 1400x900)"),
                          QStringLiteral("WxH"), QStringLiteral("1400x900"));
  QCommandLineOption measured(QStringLiteral("measured"),
                              QStringLiteral("Open a measured trace (tests/data/gpu_traces/...trace.json.xz, or a "
                                             "trace `rammer run --trace` wrote) beside MODEL's plan once it is loaded"),
                              QStringLiteral("TRACE"));
  parser.addOptions({quit, policy, device, batch, measured, screenshot, view, size});

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
  if (!out.policy.isEmpty()) {
    const auto id = rammer::schedule::parsePolicy(out.policy.toStdString());
    if (!id) {
      out.error = QString::fromStdString(id.errors().front().message);
      return out;
    }
  }
  out.device = parser.value(device);
  bool ok = false;
  out.batch = parser.value(batch).toLongLong(&ok);
  if (!ok || out.batch < 1) out.error = QStringLiteral("--batch must be a positive integer, not '%1'").arg(parser.value(batch));
  out.quitAfterLoad = parser.isSet(quit);
  out.measured = parser.value(measured);
  if (!out.measured.isEmpty() && positional.isEmpty() && out.error.isEmpty())
    out.error = QStringLiteral("--measured needs a MODEL: a measured trace lies beside its plan");
  if (out.quitAfterLoad && out.model.isEmpty() && out.error.isEmpty())
    out.error = QStringLiteral("--quit-after-load needs a MODEL");
  if (!out.error.isEmpty()) return out;
  if (!parser.isSet(screenshot)) {
    if (parser.isSet(view) || parser.isSet(size)) out.error = QStringLiteral("--view and --size go with --screenshot");
    return out;
  }
  ScreenshotRequest shot;
  shot.file = parser.value(screenshot);
  shot.view = parser.value(view);
  if (!screenshotViews().contains(shot.view)) {
    out.error = QStringLiteral("--view '%1' is not one of %2").arg(shot.view, screenshotViews().join(QLatin1String(", ")));
    return out;
  }
  const QStringList wh = parser.value(size).split(QLatin1Char('x'));
  bool wOk = false, hOk = false;
  const int w = wh.size() == 2 ? wh[0].toInt(&wOk) : 0, h = wh.size() == 2 ? wh[1].toInt(&hOk) : 0;
  if (!wOk || !hOk || w < 200 || h < 150 || w > 8192 || h > 8192) {
    out.error = QStringLiteral("--size must be WxH between 200x150 and 8192x8192, not '%1'").arg(parser.value(size));
    return out;
  }
  shot.size = QSize(w, h);
  if (shot.file.isEmpty()) out.error = QStringLiteral("--screenshot needs a FILE");
  else if (out.model.isEmpty()) out.error = QStringLiteral("--screenshot needs a MODEL");
  if (out.quitAfterLoad && out.error.isEmpty()) out.error = QStringLiteral("--screenshot and --quit-after-load exclude each other");
  out.screenshot = shot;
  return out;
}

}  // namespace rammer::studio

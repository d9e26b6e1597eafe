#pragma once
// The studio run by a script, no dialogs; the program ends with 0, or 1
// and the reason on stderr:
// - --quit-after-load MODEL: load, schedule, simulate, print one line;
// - --screenshot FILE.png --view V [--size WxH] MODEL: the window (main) or
//   one view of it (graph, timeline, teach, compare) rendered once what it shows is
//   done (the model scheduled and simulated, the graph laid out, the
//   timeline built, the comparison made), written as PNG.
// With QT_QPA_PLATFORM=offscreen neither needs a display.
#include <QElapsedTimer>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

class QTimer;
class QWidget;

namespace rammer::studio {

class MainWindow;

struct ScreenshotRequest {
  QString file;
  QString view = QStringLiteral("main");
  QSize size{1400, 900};
};

// What --view takes.
const QStringList& screenshotViews();

class HeadlessRun : public QObject {
  Q_OBJECT
 public:
  // No screenshot: --quit-after-load. A screenshot sizes the window, or
  // floats the view's dock at the requested size so its first layout fits.
  HeadlessRun(MainWindow* window, std::optional<ScreenshotRequest> screenshot);

  // The model's load job ended (`ok`: it ran to Simulate).
  void loadFinished(bool ok);

 private:
  QString loadError() const;  // the first error the session holds
  QWidget* target() const;
  bool busy() const;
  void poll();
  void render();
  void fail(const QString& message);

  MainWindow* window_;
  std::optional<ScreenshotRequest> screenshot_;
  QTimer* poll_ = nullptr;
  QElapsedTimer waited_;
  bool compareStarted_ = false;
};

}  // namespace rammer::studio

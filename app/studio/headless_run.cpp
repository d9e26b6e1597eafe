#include "app/studio/headless_run.h"

#include <QApplication>
#include <QDockWidget>
#include <QImage>
#include <QPixmap>
#include <QTimer>
#include <cstdio>

#include "app/studio/editing_controller.h"
#include "app/studio/main_window.h"
#include "app/studio/timeline_page.h"
#include "viz/models/diagnostics_model.h"
#include "viz/models/log_model.h"
#include "viz/widgets/compare_view.h"
#include "viz/widgets/graph_view.h"
#include "viz/widgets/teaching_view.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::studio {

namespace {

constexpr int kPollMs = 50;
constexpr qint64 kGiveUpMs = 15 * 60 * 1000;  // a bound, not a timing: layouts of huge graphs take minutes

// The dock a view lives in; nullptr for the whole window and for compare.
QString dockOf(const QString& view) {
  if (view == QLatin1String("graph")) return QStringLiteral("Graph");
  if (view == QLatin1String("timeline")) return QStringLiteral("Timeline");
  if (view == QLatin1String("teach")) return QStringLiteral("Teach");
  return {};
}

}  // namespace

const QStringList& screenshotViews() {
  static const QStringList views = {QStringLiteral("main"), QStringLiteral("graph"), QStringLiteral("timeline"),
                                    QStringLiteral("teach"), QStringLiteral("compare")};
  return views;
}

HeadlessRun::HeadlessRun(MainWindow* window, std::optional<ScreenshotRequest> screenshot)
    : QObject(window), window_(window), screenshot_(std::move(screenshot)) {
  if (!screenshot_) return;
  window_->resize(screenshot_->size);
  if (QDockWidget* dock = window_->dock(dockOf(screenshot_->view))) {
    dock->setFloating(true);
    dock->resize(screenshot_->size);
    dock->show();
  }
}

void HeadlessRun::loadFinished(bool ok) {
  viz::StudioSession* session = window_->session();
  if (!ok || !session->plan() || !session->predictedTrace()) {
    fail(loadError());
    return;
  }
  if (!screenshot_) {
    const schedule::Plan& plan = *session->plan();
    std::printf("loaded %s: %zu nodes after optimization; %s on %s: %zu program(s), %zu rTasks; predicted %.1f us",
                qPrintable(session->modelPath()), session->graph()->numNodes(), plan.policy.c_str(),
                plan.device.id.c_str(), plan.programs.size(), plan.numRTasks(), session->predictedTrace()->totalUs);
    if (const auto measured = session->measuredTrace())  // --measured
      std::printf("; measured %.1f us (%zu rTasks, %s)", measured->totalUs, measured->tasks.size(),
                  qPrintable(session->runLabel()));
    std::printf("\n");
    std::fflush(stdout);
    QApplication::exit(0);
    return;
  }
  // A measured trace beside the plan (--measured): the timeline shows both
  // in every lane, the run over the prediction, rather than two halves of
  // which a picture holds only the first.
  if (screenshot_->view == QLatin1String("timeline") && session->measuredTrace())
    window_->timelinePage()->view()->setCompareMode(viz::TimelineView::CompareMode::Overlay);
  poll_ = new QTimer(this);
  poll_->setInterval(kPollMs);
  connect(poll_, &QTimer::timeout, this, &HeadlessRun::poll);
  if (screenshot_->view == QLatin1String("compare")) {
    window_->editing()->compareWindow()->resize(screenshot_->size);
    window_->editing()->showCompare();
    compareStarted_ = true;
  }
  waited_.start();
  poll_->start();
}

bool HeadlessRun::busy() const {
  if (window_->session()->isBusy() || window_->graphView()->isLayoutPending() || window_->timelinePage()->isBuilding())
    return true;
  if (const auto* teach = qobject_cast<viz::TeachingView*>(window_->dock(QStringLiteral("Teach"))->widget());
      teach && teach->isBusy())
    return true;
  if (compareStarted_) {
    const viz::CompareView* compare = window_->editing()->compareView();
    return compare->isBusy() || compare->results().empty();
  }
  return false;
}

QWidget* HeadlessRun::target() const {
  if (screenshot_->view == QLatin1String("compare")) return window_->editing()->compareWindow();
  if (QDockWidget* dock = window_->dock(dockOf(screenshot_->view))) return dock;
  return window_;
}

void HeadlessRun::poll() {
  if (busy()) {
    if (waited_.elapsed() > kGiveUpMs) fail(tr("the %1 view was still being computed after 15 minutes").arg(screenshot_->view));
    return;
  }
  poll_->stop();
  render();
}

void HeadlessRun::render() {
  QWidget* w = target();
  QApplication::processEvents();  // pending layout and paint requests
  const QImage image = w->grab().toImage();
  if (image.isNull()) {
    fail(tr("rendering the %1 view gave no image").arg(screenshot_->view));
    return;
  }
  if (!image.save(screenshot_->file, "PNG")) {
    fail(tr("cannot write the screenshot to %1").arg(screenshot_->file));
    return;
  }
  std::printf("wrote %s: the %s view, %dx%d\n", qPrintable(screenshot_->file), qPrintable(screenshot_->view), image.width(),
              image.height());
  std::fflush(stdout);
  QApplication::exit(0);
}

QString HeadlessRun::loadError() const {
  for (const auto& d : window_->session()->diagnostics())
    if (d.severity == ir::Severity::Error)
      return QString::fromStdString(d.stage) + QStringLiteral(": ") + QString::fromStdString(ir::formatDiagnostic(d));
  // A measured trace that did not open (--measured) says why in the log only.
  const viz::LogModel* log = window_->session()->log();
  for (int row = log->rowCount() - 1; row >= 0; --row) {
    const QModelIndex line = log->index(row);
    if (log->data(line, viz::LogModel::LevelRole).toInt() == static_cast<int>(viz::LogModel::Level::Error))
      return log->data(line, viz::LogModel::TextRole).toString();
  }
  return tr("loading failed");
}

void HeadlessRun::fail(const QString& message) {
  if (poll_) poll_->stop();
  std::fprintf(stderr, "rammer-studio: error: %s\n", qPrintable(message));
  std::fflush(stderr);
  QApplication::exit(1);
}

}  // namespace rammer::studio

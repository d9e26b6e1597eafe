#pragma once
// Runs the studio's long work (import, passes, scheduling, simulation,
// compile and run, export) on worker threads, one job at a time from the UI's
// point of view:
//  - a newer job supersedes the running one: the old job's cancel flag is
//    set and its result is never delivered (it may still finish its current
//    stage on its thread, unseen);
//  - cancel() does the same without a successor and the UI is free at once;
//  - results and progress come back to this object's thread as queued
//    calls, so the receiver never sees a worker thread.
// Qt Core only (QThreadPool), so the session is testable without a display.
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "viz/models/studio_pipeline.h"

namespace rammer::viz {

class PipelineJob : public QObject {
  Q_OBJECT

 public:
  explicit PipelineJob(QObject* parent = nullptr);
  // Cancels every job and waits for the workers to return (a stage that
  // cannot be interrupted, a policy say, is waited for).
  ~PipelineJob() override;

  // Starts `work` on a worker thread with a pipeline::Control (cancel flag
  // and progress, as every pipeline stage takes them). `deliver` runs on this object's thread with the result, only
  // if the job is still the current one. Returns the job's id.
  template <class T>
  quint64 start(const QString& what, std::function<T(const pipeline::Control&)> work, std::function<void(T&)> deliver);

  // Drops the current job (its flag is set, its result ignored); emits
  // cancelled and busyChanged(false). Nothing happens when idle.
  void cancel();

  bool isBusy() const { return busy_; }
  quint64 currentId() const { return busy_ ? current_ : 0; }
  QString currentWhat() const { return busy_ ? what_ : QString(); }

  // Blocks until every worker, superseded and cancelled ones included, has
  // returned. For tests and shutdown; the UI never calls it.
  void waitForWorkers();

 signals:
  void started(quint64 id, const QString& what);
  void progress(quint64 id, const QString& what, int percent);
  // After `deliver` ran (or the work threw: `error` says what).
  void finished(quint64 id, const QString& error);
  void cancelled(quint64 id);
  void busyChanged(bool busy);

 private:
  quint64 begin(const QString& what);
  bool isCurrent(quint64 id) const { return busy_ && id == current_; }
  // Marks the job done; false when it is no longer the current one.
  bool takeCurrent(quint64 id);
  void finish(quint64 id, const QString& error);
  // Called on worker threads; posts to this object's thread.
  void postProgress(quint64 id, const QString& what, int percent);
  void postFailure(quint64 id, const QString& error);

  QThreadPool pool_;
  std::shared_ptr<std::atomic<bool>> flag_;  // the current job's
  quint64 current_ = 0;
  bool busy_ = false;
  QString what_;
};

template <class T>
quint64 PipelineJob::start(const QString& what, std::function<T(const pipeline::Control&)> work,
                           std::function<void(T&)> deliver) {
  const quint64 id = begin(what);
  std::shared_ptr<std::atomic<bool>> flag = flag_;
  // The destructor waits for the pool before this object goes away, so the
  // workers may post to `this` for as long as they run.
  pool_.start([this, id, flag, work = std::move(work), deliver = std::move(deliver)]() {
    // Throttle: the same percentage and text are not posted twice.
    auto last = std::make_shared<std::pair<int, std::string>>(-1, std::string());
    pipeline::Control control;
    control.cancel = flag.get();
    control.progress = [this, id, last](const std::string& w, int percent) {
      if (percent == last->first && w == last->second) return;
      *last = {percent, w};
      postProgress(id, QString::fromStdString(w), percent);
    };
    try {
      auto result = std::make_shared<T>(work(control));
      QMetaObject::invokeMethod(
          this,
          [this, id, result, deliver]() {
            if (!takeCurrent(id)) return;
            deliver(*result);
            finish(id, QString());
          },
          Qt::QueuedConnection);
    } catch (const std::exception& e) {
      postFailure(id, QString::fromStdString(e.what()));
    }
  });
  return id;
}

}  // namespace rammer::viz

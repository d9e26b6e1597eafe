#pragma once
// Runs the studio's long work (import, passes, scheduling, simulation,
// compile and run, export) and every view's background work (graph layout,
// timeline models, generated code, teaching steps, the Compare window's
// plans, the machine probe) on worker threads, one job at a time per runner
// from the UI's point of view; no widget starts a thread of its own
// (tests/docs/check_house.py):
//  - a newer job supersedes the running one: the old job's cancel flag is
//    set and its result is never delivered (it may still finish its current
//    stage on its thread, unseen);
//  - cancel() does the same without a successor and the UI is free at once;
//  - results and progress come back to the application's thread as queued
//    calls, so the receiver never sees a worker thread;
//  - a runner that waits (the default) joins its workers when destroyed; a
//    detached one (for work that cannot be interrupted, like a Graphviz
//    layout) leaves them to finish on the shared pool, their results
//    dropped once the runner is gone.
// Qt Core only (QThreadPool), so the session is testable without a display.
#include <QObject>
#include <QPointer>
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
  enum class OnDestruction { Wait, Detach };
  explicit PipelineJob(QObject* parent = nullptr, OnDestruction onDestruction = OnDestruction::Wait);
  // Cancels every job and, unless detached, waits for the workers to return
  // (a stage that cannot be interrupted, a policy say, is waited for).
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
  // Called on worker threads: runs `call` on the application's thread if
  // the runner still exists then.
  static void post(const QPointer<PipelineJob>& job, std::function<void(PipelineJob&)> call);
  QThreadPool& pool();

  const OnDestruction onDestruction_;
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
  // The workers reach the runner only through `self`, on the application's
  // thread: a detached runner may be gone before they finish.
  const QPointer<PipelineJob> self(this);
  pool().start([self, id, flag, work = std::move(work), deliver = std::move(deliver)]() {
    // Throttle: the same percentage and text are not posted twice.
    auto last = std::make_shared<std::pair<int, std::string>>(-1, std::string());
    pipeline::Control control;
    control.cancel = flag.get();
    control.progress = [self, id, last](const std::string& w, int percent) {
      if (percent == last->first && w == last->second) return;
      *last = {percent, w};
      post(self, [id, what = QString::fromStdString(w), percent](PipelineJob& job) {
        if (job.isCurrent(id)) emit job.progress(id, what, percent);
      });
    };
    try {
      auto result = std::make_shared<T>(work(control));
      post(self, [id, result, deliver](PipelineJob& job) {
        if (!job.takeCurrent(id)) return;
        deliver(*result);
        job.finish(id, QString());
      });
    } catch (const std::exception& e) {
      post(self, [id, error = QString::fromStdString(e.what())](PipelineJob& job) {
        if (job.takeCurrent(id)) job.finish(id, error);
      });
    }
  });
  return id;
}

}  // namespace rammer::viz

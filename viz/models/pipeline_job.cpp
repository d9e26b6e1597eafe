#include "viz/models/pipeline_job.h"

#include <QCoreApplication>

namespace rammer::viz {

PipelineJob::PipelineJob(QObject* parent, OnDestruction onDestruction)
    : QObject(parent), onDestruction_(onDestruction) {
  // Superseded jobs may still be finishing a stage; enough threads that a
  // new job never queues behind a few of them.
  pool_.setMaxThreadCount(4);
}

PipelineJob::~PipelineJob() {
  if (flag_) flag_->store(true);
  if (onDestruction_ == OnDestruction::Wait) pool_.waitForDone();
}

QThreadPool& PipelineJob::pool() {
  return onDestruction_ == OnDestruction::Wait ? pool_ : *QThreadPool::globalInstance();
}

void PipelineJob::post(const QPointer<PipelineJob>& job, std::function<void(PipelineJob&)> call) {
  QMetaObject::invokeMethod(
      QCoreApplication::instance(),
      [job, call = std::move(call)]() {
        if (job) call(*job);
      },
      Qt::QueuedConnection);
}

quint64 PipelineJob::begin(const QString& what) {
  if (flag_) flag_->store(true);  // supersede: the old job stops at its next check
  flag_ = std::make_shared<std::atomic<bool>>(false);
  ++current_;
  what_ = what;
  const bool wasBusy = busy_;
  busy_ = true;
  emit started(current_, what);
  if (!wasBusy) emit busyChanged(true);
  return current_;
}

bool PipelineJob::takeCurrent(quint64 id) {
  if (!isCurrent(id)) return false;
  busy_ = false;
  flag_.reset();
  return true;
}

void PipelineJob::finish(quint64 id, const QString& error) {
  emit finished(id, error);
  // `deliver` may have started the next job.
  if (!busy_) emit busyChanged(false);
}

void PipelineJob::cancel() {
  if (!busy_) return;
  const quint64 id = current_;
  flag_->store(true);  // the worker stops at its next check; its result is dropped
  takeCurrent(id);
  emit cancelled(id);
  emit busyChanged(false);
}

void PipelineJob::waitForWorkers() { pool().waitForDone(); }

}  // namespace rammer::viz

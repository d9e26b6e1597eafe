// PipelineJob: work runs off the calling thread, results come back on it,
// a newer job supersedes an older one (whose result is never delivered and
// whose cancel flag is set), cancel frees the job at once.
#include "viz/models/pipeline_job.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QSignalSpy>
#include <QThread>
#include <QThreadPool>
#include <atomic>
#include <chrono>
#include <thread>

namespace rammer::viz {
namespace {

constexpr int kWaitMs = 30000;

// Spins until the job's cancel flag is set (or a long safety timeout).
bool waitForCancel(const pipeline::Control& control) {
  const auto start = std::chrono::steady_clock::now();
  while (!control.cancelled()) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

TEST(PipelineJob, RunsOffThreadAndDeliversOnTheCallingThread) {
  PipelineJob job;
  QSignalSpy finished(&job, &PipelineJob::finished);
  QThread* worker = nullptr;
  QThread* deliveredOn = nullptr;
  int value = 0;
  const quint64 id = job.start<int>(
      QStringLiteral("answer"),
      [&worker](const pipeline::Control& control) {
        worker = QThread::currentThread();
        control.report("half", 50);
        return 42;
      },
      [&](int& v) {
        deliveredOn = QThread::currentThread();
        value = v;
      });
  EXPECT_NE(id, 0u);
  EXPECT_TRUE(job.isBusy());
  EXPECT_EQ(job.currentWhat(), "answer");
  ASSERT_TRUE(finished.wait(kWaitMs));
  EXPECT_EQ(finished.first().at(0).toULongLong(), id);
  EXPECT_TRUE(finished.first().at(1).toString().isEmpty());
  EXPECT_EQ(value, 42);
  EXPECT_EQ(deliveredOn, QThread::currentThread());
  EXPECT_NE(worker, QThread::currentThread());
  EXPECT_FALSE(job.isBusy());
}

TEST(PipelineJob, NewerJobSupersedesTheOlder) {
  PipelineJob job;
  QSignalSpy busy(&job, &PipelineJob::busyChanged);
  QSignalSpy finished(&job, &PipelineJob::finished);
  std::atomic<bool> oldSawCancel{false};
  int oldDelivered = 0, newDelivered = 0;
  job.start<int>(
      QStringLiteral("old"),
      [&](const pipeline::Control& control) {
        oldSawCancel = waitForCancel(control);
        return 1;
      },
      [&](int&) { ++oldDelivered; });
  const quint64 second = job.start<int>(
      QStringLiteral("new"), [](const pipeline::Control&) { return 2; }, [&](int& v) { newDelivered = v; });
  ASSERT_TRUE(finished.wait(kWaitMs));
  job.waitForWorkers();
  QCoreApplication::processEvents();
  EXPECT_TRUE(oldSawCancel);
  EXPECT_EQ(oldDelivered, 0);
  EXPECT_EQ(newDelivered, 2);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_EQ(finished.first().first().toULongLong(), second);
  // Busy once for both jobs: a supersede does not flicker.
  ASSERT_EQ(busy.count(), 2);
  EXPECT_TRUE(busy.at(0).first().toBool());
  EXPECT_FALSE(busy.at(1).first().toBool());
}

TEST(PipelineJob, CancelFreesAtOnceAndDropsTheResult) {
  PipelineJob job;
  QSignalSpy cancelled(&job, &PipelineJob::cancelled);
  QSignalSpy finished(&job, &PipelineJob::finished);
  std::atomic<bool> sawCancel{false};
  int delivered = 0;
  const quint64 id = job.start<int>(
      QStringLiteral("long"),
      [&](const pipeline::Control& control) {
        sawCancel = waitForCancel(control);
        return 1;
      },
      [&](int&) { ++delivered; });
  job.cancel();
  ASSERT_EQ(cancelled.count(), 1);
  EXPECT_EQ(cancelled.first().first().toULongLong(), id);
  EXPECT_FALSE(job.isBusy());
  job.waitForWorkers();
  QCoreApplication::processEvents();
  EXPECT_TRUE(sawCancel);
  EXPECT_EQ(delivered, 0);
  EXPECT_EQ(finished.count(), 0);
  job.cancel();  // idle: nothing happens
  EXPECT_EQ(cancelled.count(), 1);
}

TEST(PipelineJob, WorkThatThrowsIsReportedNotFatal) {
  PipelineJob job;
  QSignalSpy finished(&job, &PipelineJob::finished);
  job.start<int>(
      QStringLiteral("bad"), [](const pipeline::Control&) -> int { throw std::runtime_error("boom"); }, [](int&) {});
  ASSERT_TRUE(finished.wait(kWaitMs));
  EXPECT_EQ(finished.first().at(1).toString(), "boom");
  EXPECT_FALSE(job.isBusy());
}

TEST(PipelineJob, ProgressOfTheCurrentJobArrives) {
  PipelineJob job;
  QSignalSpy progress(&job, &PipelineJob::progress);
  QSignalSpy finished(&job, &PipelineJob::finished);
  job.start<int>(
      QStringLiteral("steps"),
      [](const pipeline::Control& control) {
        for (int p : {10, 10, 50, 90}) control.report("step", p);
        return 0;
      },
      [](int&) {});
  ASSERT_TRUE(finished.wait(kWaitMs));
  // The repeated 10 is not posted twice.
  ASSERT_EQ(progress.count(), 3);
  EXPECT_EQ(progress.at(0).at(2).toInt(), 10);
  EXPECT_EQ(progress.at(2).at(2).toInt(), 90);
}

// A detached runner (the graph view's, for a Graphviz layout that cannot be
// interrupted) is destroyed at once while its worker still runs; the
// worker finishes on the shared pool and its result reaches nobody.
TEST(PipelineJob, ADetachedRunnerDoesNotWaitAndItsLateResultIsDropped) {
  auto gate = std::make_shared<std::atomic<bool>>(false);
  auto ran = std::make_shared<std::atomic<bool>>(false);
  bool delivered = false;
  auto* job = new PipelineJob(nullptr, PipelineJob::OnDestruction::Detach);
  job->start<int>(
      QStringLiteral("slow"),
      [gate, ran](const pipeline::Control&) {
        while (!gate->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        ran->store(true);
        return 1;
      },
      [&delivered](int&) { delivered = true; });
  delete job;  // the worker is still held at the gate: a waiting runner would deadlock here
  gate->store(true);
  QThreadPool::globalInstance()->waitForDone();
  EXPECT_TRUE(ran->load());
  QCoreApplication::processEvents();  // the queued delivery finds no runner
  EXPECT_FALSE(delivered);
}

// A waiting runner (the default) joins its worker in its destructor, so
// work never outlives what it captured.
TEST(PipelineJob, AWaitingRunnerJoinsItsWorker) {
  auto ran = std::make_shared<std::atomic<bool>>(false);
  {
    PipelineJob job;
    job.start<int>(
        QStringLiteral("short"),
        [ran](const pipeline::Control&) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          ran->store(true);
          return 1;
        },
        [](int&) {});
  }
  EXPECT_TRUE(ran->load());
}

}  // namespace
}  // namespace rammer::viz

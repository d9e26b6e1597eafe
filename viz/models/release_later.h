#pragma once
// Drops a reference to a big value (a plan, a trace, a timeline model) so
// that, when it is the last one, the value is freed on a worker thread:
// freeing a plan of 50,000 rTasks or a million-event trace takes tens of
// milliseconds the UI thread must not spend (tests/studio/
// ui_responsiveness_test.cpp). Other references are dropped at once.
#include <QThreadPool>
#include <memory>
#include <utility>

namespace rammer::viz {

template <class T>
void releaseLater(std::shared_ptr<T>& p) {
  if (!p) return;
  if (p.use_count() > 1) {
    p.reset();
    return;
  }
  QThreadPool::globalInstance()->start([q = std::move(p)]() mutable { q.reset(); });
  p.reset();
}

// Sets `p` to `value`, releasing what it held as above.
template <class T, class U>
void replaceLater(std::shared_ptr<T>& p, U&& value) {
  std::shared_ptr<T> old = std::exchange(p, std::forward<U>(value));
  releaseLater(old);
}

}  // namespace rammer::viz

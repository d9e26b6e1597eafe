#pragma once
// A horizontal bar per plan: its predicted latency, the shortest bar's
// policy in bold; a click on a bar says which policy was picked (the
// Compare window opens that plan).
#include <QString>
#include <QWidget>
#include <vector>

namespace rammer::viz {

class LatencyBars : public QWidget {
  Q_OBJECT

 public:
  struct Bar {
    QString policy;
    double latencyUs = 0;  // <= 0: the plan failed (no bar)
  };

  explicit LatencyBars(QWidget* parent = nullptr);

  void setBars(std::vector<Bar> bars);
  const std::vector<Bar>& bars() const { return bars_; }
  // The row of a bar at `pos` (widget coordinates), or -1.
  int barAt(const QPoint& pos) const;
  QRect barRect(int row) const;  // the whole row's rectangle

  QSize sizeHint() const override;

 signals:
  void barClicked(const QString& policy);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  std::vector<Bar> bars_;
};

}  // namespace rammer::viz

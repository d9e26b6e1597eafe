#include "viz/widgets/latency_bars.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace rammer::viz {

namespace {

constexpr int kRow = 22;
constexpr int kLabel = 96;
constexpr int kValue = 90;

}  // namespace

LatencyBars::LatencyBars(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(kRow);
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Predicted latency per policy; click a bar to open that plan"));
}

void LatencyBars::setBars(std::vector<Bar> bars) {
  bars_ = std::move(bars);
  setMinimumHeight(sizeHint().height());
  updateGeometry();
  update();
}

QSize LatencyBars::sizeHint() const { return {400, std::max<int>(1, static_cast<int>(bars_.size())) * kRow + 4}; }

QRect LatencyBars::barRect(int row) const { return QRect(0, 2 + row * kRow, width(), kRow); }

int LatencyBars::barAt(const QPoint& pos) const {
  for (int r = 0; r < static_cast<int>(bars_.size()); ++r)
    if (barRect(r).contains(pos)) return r;
  return -1;
}

void LatencyBars::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  double longest = 0, shortest = 0;
  for (const Bar& b : bars_) {
    longest = std::max(longest, b.latencyUs);
    if (b.latencyUs > 0 && (shortest <= 0 || b.latencyUs < shortest)) shortest = b.latencyUs;
  }
  const int plot = std::max(10, width() - kLabel - kValue - 8);
  for (int r = 0; r < static_cast<int>(bars_.size()); ++r) {
    const Bar& b = bars_[static_cast<size_t>(r)];
    const QRect row = barRect(r);
    QFont f = font();
    f.setBold(b.latencyUs > 0 && b.latencyUs == shortest);
    p.setFont(f);
    p.setPen(palette().text().color());
    p.drawText(QRect(4, row.top(), kLabel - 8, row.height()), Qt::AlignVCenter | Qt::AlignRight, b.policy);
    if (b.latencyUs <= 0) {
      p.drawText(QRect(kLabel, row.top(), plot, row.height()), Qt::AlignVCenter | Qt::AlignLeft, tr("failed"));
      continue;
    }
    const int w = std::max(2, static_cast<int>(plot * b.latencyUs / longest));
    p.fillRect(QRect(kLabel, row.top() + 4, w, row.height() - 8),
               b.latencyUs == shortest ? QColor(0x2E, 0x7D, 0x32) : QColor(0x42, 0x6E, 0xB4));
    p.drawText(QRect(kLabel + w + 6, row.top(), kValue, row.height()), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1 us").arg(b.latencyUs, 0, 'f', 1));
  }
}

void LatencyBars::mouseReleaseEvent(QMouseEvent* event) {
  const int r = barAt(event->position().toPoint());
  if (r >= 0 && event->button() == Qt::LeftButton) emit barClicked(bars_[static_cast<size_t>(r)].policy);
}

}  // namespace rammer::viz

#include "viz/widgets/timeline_raster.h"

#include <algorithm>

namespace rammer::viz {

namespace {
constexpr uint32_t opaque(uint32_t rgb) { return 0xFF000000u | (rgb & 0xFFFFFFu); }
}  // namespace

void TimelineRaster::reset(QSize size, uint32_t background) {
  size = size.expandedTo(QSize(1, 1));
  if (image_.size() != size) image_ = QImage(size, QImage::Format_RGB32);
  image_.fill(opaque(background));
  bits_ = image_.bits();
  bytesPerLine_ = image_.bytesPerLine();
}

void TimelineRaster::fill(int x0, int x1, int y0, int y1, uint32_t rgb) {
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, image_.width());
  y1 = std::min(y1, image_.height());
  if (x0 >= x1 || y0 >= y1) return;
  const uint32_t px = opaque(rgb);
  for (int y = y0; y < y1; ++y) {
    uint32_t* line = row(y);
    std::fill(line + x0, line + x1, px);
  }
}

void TimelineRaster::hatch(int x0, int x1, int y0, int y1, uint32_t fillRgb, uint32_t stripeRgb) {
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, image_.width());
  y1 = std::min(y1, image_.height());
  if (x0 >= x1 || y0 >= y1) return;
  const uint32_t f = opaque(fillRgb);
  const uint32_t s = opaque(stripeRgb);
  for (int y = y0; y < y1; ++y) {
    uint32_t* line = row(y);
    for (int x = x0; x < x1; ++x) line[x] = ((x + y) & 3) == 0 ? s : f;
  }
}

void TimelineRaster::outline(int x0, int x1, int y0, int y1, uint32_t rgb) {
  if (x1 - x0 < 1 || y1 - y0 < 1) return;
  fill(x0, x1, y0, y0 + 1, rgb);
  fill(x0, x1, y1 - 1, y1, rgb);
  fill(x0, x0 + 1, y0, y1, rgb);
  fill(x1 - 1, x1, y0, y1, rgb);
}

}  // namespace rammer::viz

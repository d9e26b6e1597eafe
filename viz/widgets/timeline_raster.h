#pragma once
// Writes timeline boxes straight into a QImage's scanlines. A zoomed-out
// timeline paints up to one box per pixel column per lane (hundreds of
// thousands of 1-pixel boxes); per-call QPainter overhead would dominate
// that, a clipped std::fill does not. Colours are 0xRRGGBB.
#include <QImage>
#include <QSize>
#include <cstddef>
#include <cstdint>

namespace rammer::viz {

class TimelineRaster {
 public:
  // Resizes (keeping the buffer when the size is unchanged) and clears.
  void reset(QSize size, uint32_t background);
  const QImage& image() const { return image_; }
  int width() const { return image_.width(); }
  int height() const { return image_.height(); }

  // Rectangles are [x0, x1) x [y0, y1), clipped to the image.
  void fill(int x0, int x1, int y0, int y1, uint32_t rgb);
  // Barrier waits: `fillRgb` with diagonal stripes of `stripeRgb`.
  void hatch(int x0, int x1, int y0, int y1, uint32_t fillRgb, uint32_t stripeRgb);
  // A 1-pixel frame just inside the rectangle.
  void outline(int x0, int x1, int y0, int y1, uint32_t rgb);

 private:
  uint32_t* row(int y) { return reinterpret_cast<uint32_t*>(bits_ + static_cast<ptrdiff_t>(y) * bytesPerLine_); }

  QImage image_;
  // Detached once per reset(): QImage::scanLine() on a non-const image
  // checks for sharing on every call, which showed up in profiles.
  uchar* bits_ = nullptr;
  qsizetype bytesPerLine_ = 0;
};

}  // namespace rammer::viz

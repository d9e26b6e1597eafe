#include "viz/models/timeline_palette.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace rammer::viz {

namespace {

// Hand-picked, distinguishable at a few pixels, none close to the barrier
// grey or the selection outline.
constexpr std::array<uint32_t, 24> kPalette = {
    0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xEDC948, 0xB07AA1, 0xFF9DA7,
    0x9C755F, 0x8CD17D, 0x86BCB6, 0xF1CE63, 0xD37295, 0xA0CBE8, 0xFFBE7D, 0x499894,
    0xD4A6C8, 0x6A9F58, 0xE49444, 0x5778A4, 0xD1615D, 0x85B6B2, 0xE7CA60, 0xA87C9F,
};

// Integer blend (painting calls this once per mark): t in 1/256 steps.
uint32_t mix(uint32_t a, uint32_t b, double t) {
  const int w = static_cast<int>(std::clamp(t, 0.0, 1.0) * 256 + 0.5);
  uint32_t out = 0;
  for (int shift : {16, 8, 0}) {
    const int ca = static_cast<int>((a >> shift) & 0xFF);
    const int cb = static_cast<int>((b >> shift) & 0xFF);
    out |= static_cast<uint32_t>(ca + (((cb - ca) * w + 128) >> 8)) << shift;
  }
  return out;
}

}  // namespace

uint32_t stableHash(std::string_view text) {
  uint32_t h = 2166136261u;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 16777619u;
  }
  return h;
}

uint32_t opColor(std::string_view opName) { return kPalette[stableHash(opName) % kPalette.size()]; }

uint32_t slipColor(double slipUs, double scaleUs) {
  constexpr uint32_t onTime = 0xBDBDBD;
  constexpr uint32_t late = 0xD62728;
  constexpr uint32_t early = 0x1F77B4;
  if (!std::isfinite(slipUs)) return kUnmatchedColor;
  if (!(scaleUs > 0)) return onTime;
  const double t = std::min(1.0, std::fabs(slipUs) / scaleUs);
  return mix(onTime, slipUs > 0 ? late : early, t);
}

uint32_t fadeColor(uint32_t rgb, double amount) { return mix(rgb, 0xFFFFFF, amount); }

uint32_t darkenColor(uint32_t rgb) { return mix(rgb, 0x000000, 0.25); }

bool isDarkColor(uint32_t rgb) {
  const double luma = 0.299 * ((rgb >> 16) & 0xFF) + 0.587 * ((rgb >> 8) & 0xFF) + 0.114 * (rgb & 0xFF);
  return luma < 140;
}

}  // namespace rammer::viz

#pragma once
// Timeline colours, as 0xRRGGBB integers (Qt-Gui-free; widgets make QColors).
// An operator's colour comes from a stable hash of its name, so the same op
// has the same colour in a predicted and a measured trace, across runs and
// machines (std::hash promises none of that).
#include <cstdint>
#include <string_view>

namespace rammer::viz {

// FNV-1a, 32 bit.
uint32_t stableHash(std::string_view text);

// One of a fixed palette of mid-tone colours that dark text reads on.
uint32_t opColor(std::string_view opName);

// The view's chrome.
inline constexpr uint32_t kTimelineBackground = 0xFFFFFF;
inline constexpr uint32_t kTimelineGroupShade = 0xF4F5F7;      // every other SM group
inline constexpr uint32_t kTimelineGroupLine = 0xD5D8DD;       // between SM groups
inline constexpr uint32_t kTimelineProgramLine = 0x4A5A70;     // program boundaries
inline constexpr uint32_t kTimelineSectionBand = 0xE4E8EE;     // section header band
inline constexpr uint32_t kTimelineSelectionFrame = 0x101010;  // selected rTasks
inline constexpr uint32_t kTimelineHighlightFrame = 0xE0201A;  // rTasks a refused edit would break
inline constexpr uint32_t kTimelineDropMarker = 0x1E64D8;      // where a dragged rTask would land

// Barrier waits: grey boxes with darker hatching.
inline constexpr uint32_t kBarrierFill = 0xC8C8C8;
inline constexpr uint32_t kBarrierHatch = 0x8C8C8C;

// Slip colouring: grey when on time, towards red when the measured rTask
// started later than predicted, towards blue when earlier; saturates at
// |slipUs| >= scaleUs.
uint32_t slipColor(double slipUs, double scaleUs);
// Measured rTasks with no predicted counterpart.
inline constexpr uint32_t kUnmatchedColor = 0xE0B000;

// Mixes `rgb` with white: amount 0 keeps it, 1 gives white.
uint32_t fadeColor(uint32_t rgb, double amount);
// A shade darker (box edges).
uint32_t darkenColor(uint32_t rgb);
// Whether white text reads better than black on `rgb` (Rec. 601 luma).
bool isDarkColor(uint32_t rgb);

}  // namespace rammer::viz

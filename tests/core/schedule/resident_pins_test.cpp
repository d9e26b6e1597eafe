// Homes of persistent cells' weight slices (resident_pins.h): one vEU per
// (value, rTask), the values side by side in the order first asked about.
#include "core/schedule/resident_pins.h"

#include <gtest/gtest.h>

#include "tests/core/schedule/schedule_fixtures.h"

using namespace rammer;
using namespace rammer::schedule;
namespace rt = rammer::testing;

namespace {
kernels::RKernel cell(const std::string& value, int64_t rtasks) {
  kernels::RKernel k = rt::fakeKernel("cell_" + value, rtasks, 1e6);
  k.residentBytes = 32 * 1024;
  k.residentValue = value;
  return k;
}
}  // namespace

TEST(ResidentHomes, EachSliceOfAValueHasOneVEUAndTheValuesSitSideBySide) {
  ResidentHomes homes;
  const auto r0 = cell("R0", 4), r1 = cell("R1", 4);
  EXPECT_EQ(homes.home(r0, 0, 100), 0);
  EXPECT_EQ(homes.home(r0, 3, 100), 3);
  EXPECT_EQ(homes.home(r1, 0, 100), 4);  // after R0's four slices
  EXPECT_EQ(homes.home(r1, 2, 100), 6);
  EXPECT_EQ(homes.home(r0, 3, 100), 3);  // asked again: the same
  // Another operator of the same value (the next step's cell) shares the homes.
  EXPECT_EQ(homes.home(cell("R0", 4), 1, 100), 1);
  EXPECT_EQ(homes.slices(), 8);
  // A program of fewer vEUs than slices wraps around.
  EXPECT_EQ(homes.home(r1, 2, 5), 1);
}

TEST(ResidentHomes, ACandidateWithMoreRTasksGetsANewRangeAndOtherRKernelsNone) {
  ResidentHomes homes;
  EXPECT_EQ(homes.home(cell("R0", 2), 1, 100), 1);
  EXPECT_EQ(homes.home(cell("R1", 2), 0, 100), 2);
  // A narrower variant of R0 (four rTasks): slices 2 and 3 would be R1's homes.
  EXPECT_EQ(homes.home(cell("R0", 4), 3, 100), 7);
  EXPECT_EQ(homes.home(rt::fakeKernel("gemm", 8, 1e6), 0, 100), -1);
  EXPECT_EQ(homes.home(cell("R0", 4), -1, 100), -1);
  EXPECT_EQ(homes.home(cell("R0", 4), 0, 0), -1);
}

// vEUs per SM from the occupancy of a program's rKernels (values worked out
// by hand from the H100 limits: 2048 threads, 64K registers, 228 KB shared
// per SM, 1 KB reserved per block, 32 blocks).
#include <gtest/gtest.h>

#include <algorithm>

#include "core/schedule/validator.h"
#include "core/schedule/vdevice.h"
#include "tests/core/schedule/schedule_fixtures.h"

using namespace rammer;
using namespace rammer::schedule;
namespace rt = rammer::testing;

TEST(VDevice, OneKernelSetsVEUsPerSM) {
  const device::DeviceSpec h100 = device::presetDevice("h100").value();
  const auto k = rt::fakeKernel("k", 1, 0, 256);
  auto l = makeVDevice(h100, {{"op", &k}});
  ASSERT_TRUE(l.ok()) << l.errorText();
  EXPECT_EQ(l->veusPerSM, 8);  // 2048 / 256 threads
  EXPECT_EQ(l->numVEUs, 8 * 132);
  EXPECT_EQ(l->threads, 256);
}

TEST(VDevice, TakesTheMaximumOverTheProgramsKernels) {
  const device::DeviceSpec h100 = device::presetDevice("h100").value();
  const auto small = rt::fakeKernel("small", 1, 0, 64);
  const auto wide = rt::fakeKernel("wide", 1, 0, 1024);
  const auto smem = rt::fakeKernel("smem", 1, 0, 128, 100 * 1024);
  auto l = makeVDevice(h100, {{"a", &small}, {"b", &wide}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->veusPerSM, 2);  // 2048 / 1024 threads
  // 100 KB + 1 KB reserved per block: 228 KB holds 2.
  l = makeVDevice(h100, {{"a", &small}, {"c", &smem}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->veusPerSM, 2);
  EXPECT_EQ(l->sharedBytes, 100 * 1024);
  EXPECT_EQ(l->limitedBy, device::OccupancyLimit::SharedMemory);
  // 64 threads alone: 32 blocks per SM (the block limit).
  l = makeVDevice(h100, {{"a", &small}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->veusPerSM, 32);
}

TEST(VDevice, KernelsThatCannotFitAreNamed) {
  const device::DeviceSpec h100 = device::presetDevice("h100").value();
  const auto ok = rt::fakeKernel("ok", 1, 0, 128);
  const auto huge = rt::fakeKernel("huge_smem", 1, 0, 128, 300 * 1024);
  auto l = makeVDevice(h100, {{"fine", &ok}, {"conv9", &huge}});
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.errorText().find("rKernel 'huge_smem' of 'conv9' cannot run"), std::string::npos) << l.errorText();
  // Each fits alone, but 1024 threads x 255 registers do not.
  auto many = rt::fakeKernel("many_threads", 1, 0, 1024);
  auto regs = rt::fakeKernel("many_regs", 1, 0, 64);
  regs.regsEstimate = 255;
  l = makeVDevice(h100, {{"a", &many}, {"b", &regs}});
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.errorText().find("'many_threads'"), std::string::npos) << l.errorText();
  EXPECT_NE(l.errorText().find("'many_regs'"), std::string::npos) << l.errorText();
}

// A program's vDevice: its block sized by the rKernels its rTasks use, its
// vEU count its own; what the code generator sizes the kernel's block by.
TEST(VDevice, OfAProgramIsSizedByTheRKernelsItRuns) {
  const ir::Graph g = rt::chainGraph(4);
  schedule::Plan plan = rt::handPlan(g, {1, 1, 1, 1}, {{rt::exec(1, 0)}, {rt::exec(2, 0)}, {}});
  plan.ops[1].kernel = rt::fakeKernel("small", 1, 1e6, 64);
  plan.ops[2].kernel = rt::fakeKernel("wide", 1, 1e6, 512, 4096);
  plan.ops[3].kernel = rt::fakeKernel("unused", 1, 1e6, 1024);  // runs in no rTask of this program
  auto v = vdeviceOf(plan, 0);
  ASSERT_TRUE(v.ok()) << v.errorText();
  EXPECT_EQ(v->threads, 512);
  EXPECT_EQ(v->sharedBytes, 4096);
  EXPECT_EQ(v->numVEUs, 3);
  EXPECT_EQ(v->sms, plan.device.sms);
  EXPECT_GE(v->veusPerSM, 1);

  // An rKernel no SM can hold: the vDevice says which.
  plan.ops[2].kernel = rt::fakeKernel("huge", 1, 1e6, 256, int64_t{1} << 30);
  auto none = vdeviceOf(plan, 0);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.errorText().find("'huge'"), std::string::npos) << none.errorText();
}

// Issue #27 item 2: the vDevice shape. At 256 threads an H100 SM's 64K
// registers give 1, 2 or 4 resident vEUs up to 255, 128 or 64 registers.
TEST(VDevice, AShapeGivesEachVEUTheRegistersItLeaves) {
  const device::DeviceSpec h100 = device::presetDevice("h100").value();
  EXPECT_EQ(registerBudget(h100, 256, 0, 1), 255);
  EXPECT_EQ(registerBudget(h100, 256, 0, 2), 128);
  EXPECT_EQ(registerBudget(h100, 256, 0, 4), 64);
  EXPECT_EQ(registerBudget(h100, 256, 0, 8), 32);
  // 9 blocks of 256 threads exceed the SM's 2048 threads at any budget.
  EXPECT_EQ(registerBudget(h100, 256, 0, 9), 0);

  auto k = rt::fakeKernel("tile128", 1, 0, 256);
  k.regsEstimate = 128;
  auto natural = makeVDevice(h100, {{"conv", &k}});
  ASSERT_TRUE(natural.ok()) << natural.errorText();
  EXPECT_EQ(natural->veusPerSM, 2);
  auto one = makeVDevice(h100, {{"conv", &k}}, 1);
  ASSERT_TRUE(one.ok()) << one.errorText();
  EXPECT_EQ(one->veusPerSM, 1);
  EXPECT_EQ(one->numVEUs, 132);
  EXPECT_EQ(one->regs, 255);  // the budget the kernel's bounds give it
  EXPECT_NE(one->summary.find("the shape chosen"), std::string::npos) << one->summary;
  auto four = makeVDevice(h100, {{"conv", &k}}, 4);
  ASSERT_FALSE(four.ok());
  EXPECT_NE(four.errorText().find("4 vEUs per SM"), std::string::npos) << four.errorText();
  EXPECT_NE(four.errorText().find("64 registers"), std::string::npos) << four.errorText();
  EXPECT_NE(four.errorText().find("'tile128' of 'conv' needs 128 registers"), std::string::npos) << four.errorText();
}

// A program the policy shaped with fewer vEUs per SM than its rKernels
// allow is checked at that shape: more vEUs than can be resident is a
// problem the validator names.
TEST(VDevice, OfAProgramHonoursTheShapeItWasGiven) {
  const ir::Graph g = rt::chainGraph(3);
  schedule::Plan plan = rt::handPlan(g, {1, 1, 1}, {{rt::exec(0, 0)}, {rt::exec(1, 0)}, {rt::exec(2, 0)}});
  ASSERT_EQ(plan.device.sms, 2);
  plan.programs[0].veusPerSM = 1;
  auto v = vdeviceOf(plan, 0);
  ASSERT_TRUE(v.ok()) << v.errorText();
  EXPECT_EQ(v->veusPerSM, 1);
  EXPECT_EQ(v->regs, 255);
  // (The chain's missing barriers are Ordering problems, not counted here.)
  const auto report = schedule::checkPlan(plan, g);
  ASSERT_EQ(report.count(schedule::ProblemKind::Resources), 1u);
  const auto it = std::find_if(report.problems.begin(), report.problems.end(),
                               [](const auto& pr) { return pr.kind == schedule::ProblemKind::Resources; });
  EXPECT_NE(it->message.find("3 vEUs but only 2 (1 per SM x 2 SMs)"), std::string::npos) << it->message;
  plan.programs[0].veusPerSM = 2;
  EXPECT_EQ(schedule::checkPlan(plan, g).count(schedule::ProblemKind::Resources), 0u);
}

// A persistent cell's resident region (issue #45 item 3) lies beside every
// rKernel's scratch: the vEU takes the largest scratch plus the largest
// region, and fewer vEUs fit an SM.
TEST(VDevice, AResidentRegionAddsToTheLargestScratch) {
  const device::DeviceSpec h100 = device::presetDevice("h100").value();
  auto gemm = rt::fakeKernel("gemm", 1, 0, 256, 20 * 1024);
  auto cell = rt::fakeKernel("cell", 1, 0, 256, 4 * 1024);
  cell.residentBytes = 40 * 1024 + 8;  // rounded to 16 bytes
  auto l = makeVDevice(h100, {{"g", &gemm}, {"c", &cell}});
  ASSERT_TRUE(l.ok()) << l.errorText();
  EXPECT_EQ(l->residentBytes, 40 * 1024 + 16);
  EXPECT_EQ(l->sharedBytes, 20 * 1024 + 40 * 1024 + 16);
  // (228 KB) / (60 KB + 16 B + 1 KB reserved) = 3 vEUs per SM, not the 8 the threads allow.
  EXPECT_EQ(l->veusPerSM, 3);
  EXPECT_EQ(l->limitedBy, device::OccupancyLimit::SharedMemory);
  EXPECT_NE(l->summary.find("resident"), std::string::npos) << l->summary;
  // Without the cell: no region.
  l = makeVDevice(h100, {{"g", &gemm}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->residentBytes, 0);
  EXPECT_EQ(l->sharedBytes, 20 * 1024);
}

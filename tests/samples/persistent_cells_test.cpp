// Persistent cells on the host target (issue #45 item 3): a stacked LSTM's
// cells keep their weight slices in shared memory (gemv_cell.cuh,
// rammer_gemv_cell_resident), each slice pinned to one vEU for every step
// (core/schedule/resident_pins.h). The emulator runs the plan from the
// rKernels' declared writes; the host target runs the very CUDA
// text, so these runs check the resident region's layout, its tag, the
// kernel's start that clears it, and the scratch the other rKernels get
// after it; ThreadSanitizer checks that the region adds no race.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/codegen/code_generator.h"
#include "core/device/device_spec.h"
#include "core/exec/plan_emulator.h"
#include "core/exec/reference_executor.h"
#include "core/schedule/validator.h"
#include "core/schedule/vdevice.h"
#include "tests/core/codegen/codegen_fixtures.h"
#include "tests/samples/mini_models.h"
#include "tests/support/host_run.h"

namespace rammer {
namespace {

device::DeviceSpec smallDevice(int sms = 2) { return samples_test::v100WithSMs(sms, "persistent cell tests"); }

// Three LSTM layers of 8 steps, hidden 64: 21 cells with a recurrent product.
ir::Graph stackedLstm() { return samples_test::miniStackedLstm("resident_lstm"); }

// Per weight slice (value, rTask): the vEUs of its program it runs on.
std::map<std::pair<std::string, int64_t>, std::set<int>> sliceVEUs(const schedule::Plan& plan) {
  std::map<std::pair<std::string, int64_t>, std::set<int>> out;
  for (const auto& prog : plan.programs)
    for (int v = 0; v < prog.program.numVEUs(); ++v)
      for (const auto& in : prog.program.stream(v))
        if (const auto* e = std::get_if<schedule::Exec>(&in)) {
          const auto& k = plan.ops[static_cast<size_t>(e->task.op)].kernel;
          if (k.residentBytes > 0) out[{k.residentValue, e->task.rtask}].insert(v);
        }
  return out;
}

size_t residentOps(const schedule::Plan& plan) {
  size_t n = 0;
  for (const auto& op : plan.ops) n += !op.isView && op.kernel.residentBytes > 0;
  return n;
}

void expectRight(const schedule::Plan& plan, const ir::Graph& g, bool tsan) {
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  runtime::HostExecutionOptions o = testing::hostTestOptions();
  if (tsan) {
    o.build.threadSanitizer = true;
    o.workers = 2;
  }
  auto got = runtime::executeOnHost(plan, g, inputs, o);
  ASSERT_TRUE(got.ok()) << got.errorText();
  EXPECT_LE(testing::worstRelativeL2(got->outputs, *want), 1e-4);
}

TEST(PersistentCells, EachSliceStaysOnOneVEUAndTheHostProgramMatchesTheReference) {
  const ir::Graph g = stackedLstm();
  const schedule::Plan plan = testing::planSample(g, "wavefront", smallDevice(8));
  ASSERT_EQ(residentOps(plan), 21u) << "every cell after the first step keeps its weights on chip";
  const auto slices = sliceVEUs(plan);
  ASSERT_FALSE(slices.empty());
  std::set<int> homes;
  for (const auto& [slice, veus] : slices) {
    EXPECT_EQ(veus.size(), 1u) << slice.first << " rTask " << slice.second << " runs on " << veus.size() << " vEUs";
    homes.insert(*veus.begin());
  }
  // 24 slices (3 layers x 8 rTasks) on 32 vEUs: no two share a vEU, so
  // after its first step every cell rTask finds its slice.
  EXPECT_EQ(slices.size(), 24u);
  EXPECT_EQ(homes.size(), slices.size());
  EXPECT_TRUE(schedule::validate(plan, g).empty());
  // Each slice is loaded by its first step and found by the other six:
  // a wrong slice layout or tag would show in the outputs.
  expectRight(plan, g, /*tsan=*/false);
  // The emulator runs the same plan from the rKernels' declared writes.
  const std::vector<ir::Tensor> inputs = testing::seededInputs(g);
  auto want = exec::runReference(g, inputs);
  ASSERT_TRUE(want.ok()) << want.errorText();
  auto emulated = exec::emulatePlan(plan, g, inputs, {});
  ASSERT_TRUE(emulated.ok()) << emulated.errorText();
  EXPECT_LE(testing::worstRelativeL2(emulated->outputs, *want), 1e-5);
}

TEST(PersistentCells, TwoLayersSharingEachVEUReloadTheirSlicesAndStayRight) {
  const ir::Graph g = stackedLstm();
  const schedule::Plan free = testing::planSample(g, "wavefront", smallDevice());
  // Every cell's rTask j of every layer on vEU j: the layers take turns, so
  // the tag names the other layer's slice at almost every step.
  schedule::Constraints c;
  for (const auto& op : free.ops)
    if (op.kernel.residentBytes > 0)
      for (int64_t r = 0; r < op.kernel.numRTasks; ++r) c.pins.push_back({op.name, r, static_cast<int>(r), -1});
  const schedule::Plan plan = testing::planSample(g, "wavefront", smallDevice(), c);
  ASSERT_EQ(residentOps(plan), 21u);
  std::map<int64_t, std::set<std::string>> valuesOnVEU;
  for (const auto& [slice, veus] : sliceVEUs(plan)) {
    ASSERT_EQ(veus.size(), 1u);
    valuesOnVEU[*veus.begin()].insert(slice.first);
  }
  for (const auto& [veu, values] : valuesOnVEU) EXPECT_EQ(values.size(), 3u) << "vEU " << veu;
  expectRight(plan, g, /*tsan=*/false);
}

// The two widths of one layer's cells lay out the same first columns
// differently: steps alternating between them share each rTask 0's vEU
// (one home per value and rTask index), and the tag's row length makes
// each reload its own layout.
TEST(PersistentCells, StepsAlternatingBetweenTheTwoWidthsReloadTheirOwnLayout) {
  const ir::Graph g = stackedLstm();
  const schedule::Plan free = testing::planSample(g, "wavefront", smallDevice(8));
  schedule::Constraints c;
  int n = 0;
  for (const auto& op : free.ops)
    if (op.kernel.residentBytes > 0)
      c.kernelFor[op.name] = n++ % 2 ? "gemv_lstmcell_resident_j32" : "gemv_lstmcell_resident_j8";
  const schedule::Plan plan = testing::planSample(g, "wavefront", smallDevice(8), c);
  std::set<std::string> widths;
  for (const auto& op : plan.ops)
    if (op.kernel.residentBytes > 0) widths.insert(op.kernel.name);
  ASSERT_EQ(widths.size(), 2u);
  // rTask 0 of both widths of each layer on one vEU.
  const auto slices = sliceVEUs(plan);
  int layers = 0;
  for (const auto& [slice, veus] : slices)
    if (slice.second == 0) {
      EXPECT_EQ(veus.size(), 1u) << slice.first;
      ++layers;
    }
  EXPECT_EQ(layers, 3);
  expectRight(plan, g, /*tsan=*/false);
}

TEST(PersistentCells, TheResidentRegionAddsNoDataRace) {
  const ir::Graph g = stackedLstm();
  const schedule::Plan plan = testing::planSample(g, "wavefront", smallDevice());
  ASSERT_GT(residentOps(plan), 0u);
  expectRight(plan, g, /*tsan=*/true);
}

// The kernel text: each block clears the region's tag when it starts and
// every rKernel gets the shared memory after the region as its scratch; the
// launch asks for the region and the scratch together.
TEST(PersistentCells, TheKernelStartsWithAnEmptyRegionAndHandsOutTheSharedMemoryAfterIt) {
  const ir::Graph g = stackedLstm();
  const schedule::Plan plan = testing::planSample(g, "wavefront", smallDevice(8));
  auto code = codegen::generateProgram(plan, g, {});
  ASSERT_TRUE(code.ok()) << code.errorText();
  int withRegion = 0;
  for (const auto& l : code->launches) {
    auto v = schedule::vdeviceOf(plan, static_cast<size_t>(l.program));
    ASSERT_TRUE(v.ok()) << v.errorText();
    EXPECT_EQ(l.residentBytes, v->residentBytes);
    EXPECT_EQ(l.dynamicSharedBytes, v->sharedBytes);
    if (l.residentBytes == 0) continue;
    ++withRegion;
    const std::string scratch = "(rammer_smem + " + std::to_string(l.residentBytes / 4) + ")";
    EXPECT_NE(code->source.find("rammer_resident_begin(" + scratch + ", tid);"), std::string::npos);
    EXPECT_NE(code->source.find("tid, " + scratch + ", buffers"), std::string::npos);
    // The largest slice: 64 rows of 40 floats (4 gate blocks x 8 columns, padded), and the tag.
    EXPECT_EQ(l.residentBytes, 64 * 40 * 4 + 16);
  }
  EXPECT_EQ(withRegion, 1) << "the one persistent program of cells";
}

}  // namespace
}  // namespace rammer

// Reading the lease recorder's measured traces (issue #28 item 1: "a
// documented format that rammer and the studio read"): a committed xz file
// of the 2026-11-26 H100 lease into a Trace, checked against what the file
// holds (counted here by hand with xzcat and Python), and bad files refused
// with a message that says what is wrong.
#include "core/sim/measured_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace rammer::sim {
namespace {

namespace fs = std::filesystem;

const fs::path kLease = fs::path(RAMMER_SOURCE_DIR) / "tests/data/gpu_traces/2026-11-26-h100/runs";

std::string bytesOf(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

fs::path writeTemp(const std::string& name, const std::string& bytes) {
  const fs::path p = fs::temp_directory_path() / ("rammer_measured_" + name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

TEST(MeasuredTrace, ACommittedXzTraceOpensAsATrace) {
  auto t = loadMeasuredTrace(kLease / "alexnet.wavefront.trace.json.xz");
  ASSERT_TRUE(t.ok()) << t.errorText();
  EXPECT_TRUE(t->measured);
  EXPECT_EQ(t->device, "h100");
  EXPECT_EQ(t->sms, 132);
  EXPECT_NE(t->source.find("H100"), std::string::npos) << t->source;
  EXPECT_DOUBLE_EQ(t->totalUs, 3947.712);
  EXPECT_NEAR(t->smEfficiency, 0.422269, 1e-9);
  ASSERT_EQ(t->tasks.size(), 2243u);
  ASSERT_EQ(t->opNames.size(), 20u);  // op indices 0..19
  EXPECT_EQ(t->opNames[0], "features.conv1");
  EXPECT_EQ(t->kernelNames[0], "conv_igemm_64x64");
  ASSERT_EQ(t->programs.size(), 1u);
  EXPECT_EQ(t->programs[0].numVEUs, 528);
  EXPECT_EQ(t->programs[0].veusPerSM, 4);
  // The delta-coded columns summed back: the first rTask, and every rTask
  // inside the run on an SM of the card.
  EXPECT_EQ(t->tasks[0].task.op, 0);
  EXPECT_DOUBLE_EQ(t->tasks[0].startUs, 0.544);
  EXPECT_DOUBLE_EQ(t->tasks[0].endUs, 0.544 + 93.92);
  double last = 0;
  for (const TaskEvent& e : t->tasks) {
    EXPECT_GE(e.sm, 0);
    EXPECT_LT(e.sm, 132);
    EXPECT_LE(e.startUs, e.endUs);
    last = std::max(last, e.endUs);
  }
  EXPECT_DOUBLE_EQ(last, 3947.712);
}

TEST(MeasuredTrace, PlainJsonReadsTheSameAsXz) {
  auto xz = decompressXz(bytesOf(kLease / "alexnet.wavefront.trace.json.xz"), size_t{1} << 30);
  ASSERT_TRUE(xz.ok()) << xz.errorText();
  const fs::path plain = writeTemp("plain.json", *xz);
  auto a = loadMeasuredTrace(plain);
  auto b = loadMeasuredTrace(kLease / "alexnet.wavefront.trace.json.xz");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->tasks.size(), b->tasks.size());
  EXPECT_EQ(a->opNames, b->opNames);
  fs::remove(plain);
}

TEST(MeasuredTrace, EveryCommittedTraceOfTheLeaseOpens) {
  size_t n = 0;
  for (const auto& f : fs::directory_iterator(kLease)) {
    if (!f.path().string().ends_with(".trace.json.xz")) continue;
    SCOPED_TRACE(f.path().filename().string());
    auto t = loadMeasuredTrace(f.path());
    ASSERT_TRUE(t.ok()) << t.errorText();
    EXPECT_FALSE(t->tasks.empty());
    EXPECT_GT(t->totalUs, 0);
    ++n;
  }
  EXPECT_GE(n, 80u);  // 84 runs in the README's table
}

TEST(MeasuredTrace, BadFilesAreRefusedWithWhatIsWrong) {
  auto missing = loadMeasuredTrace("/no/such/trace.json.xz");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.errorText().find("cannot open"), std::string::npos) << missing.errorText();

  std::string xz = bytesOf(kLease / "alexnet.wavefront.trace.json.xz");
  const fs::path truncated = writeTemp("truncated.json.xz", xz.substr(0, xz.size() / 2));
  auto cut = loadMeasuredTrace(truncated);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.errorText().find("truncated"), std::string::npos) << cut.errorText();
  fs::remove(truncated);

  xz[xz.size() / 2] = static_cast<char>(xz[xz.size() / 2] ^ 0x5A);
  const fs::path corrupt = writeTemp("corrupt.json.xz", xz);
  auto bad = loadMeasuredTrace(corrupt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.errorText().find("corrupt"), std::string::npos) << bad.errorText();
  fs::remove(corrupt);

  auto big = decompressXz(bytesOf(kLease / "alexnet.wavefront.trace.json.xz"), 1000);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.errorText().find("decompresses to more than"), std::string::npos) << big.errorText();

  auto chrome = parseMeasuredTrace(R"({"traceEvents": []})", "chrome.json");
  ASSERT_FALSE(chrome.ok());
  EXPECT_NE(chrome.errorText().find("not a measured trace"), std::string::npos) << chrome.errorText();

  auto ragged = parseMeasuredTrace(R"({"format": "rammer-measured-trace", "version": 1, "other": {},
    "ops": {"0": "a"}, "kernels": {"0": "k"}, "programs": [],
    "tasks": {"delta": [], "op": [0, 0], "rtask": [0], "program": [0, 0], "veu": [0, 0], "order": [0, 1],
              "sm": [0, 0], "start_ns": [0, 5], "dur_ns": [5, 5]}})",
                                    "ragged.json");
  ASSERT_FALSE(ragged.ok());
  EXPECT_NE(ragged.errorText().find("\"tasks\".rtask has 1 elements"), std::string::npos) << ragged.errorText();

  auto unknownOp = parseMeasuredTrace(R"({"format": "rammer-measured-trace", "version": 1, "other": {},
    "ops": {"0": "a"}, "kernels": {}, "programs": [],
    "tasks": {"delta": [], "op": [3], "rtask": [0], "program": [0], "veu": [0], "order": [0],
              "sm": [0], "start_ns": [0], "dur_ns": [5]}})",
                                       "op.json");
  ASSERT_FALSE(unknownOp.ok());
  EXPECT_NE(unknownOp.errorText().find("names op 3"), std::string::npos) << unknownOp.errorText();
}

}  // namespace
}  // namespace rammer::sim

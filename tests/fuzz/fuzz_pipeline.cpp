// ONNX bytes -> the whole pipeline: passes, every policy, the validator, the
// simulator and the CPU emulator on seeded inputs, whose outputs must match
// the reference executor's; and, for the smallest graphs, the generated code
// itself on the host target (one policy; the build cache is keyed by the
// source, so the many inputs that differ only in their data build once):
// generated code that does not compile, crashes or deadlocks, or computes a
// wrong answer is a finding. Models past a small size are skipped: the
// fuzzer looks for wrong answers and crashes, not for slow big models.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/ir/shape.h"
#include "core/onnx/importer.h"
#include "core/pipeline/pipeline.h"
#include "core/schedule/policy.h"

namespace {

constexpr size_t kMaxNodes = 64;
constexpr int64_t kMaxElements = 1 << 16;  // per value

bool small(const rammer::ir::Graph& g) {
  if (g.numNodes() > kMaxNodes) return false;
  for (size_t v = 0; v < g.numValues(); ++v) {
    const auto& t = g.value(static_cast<rammer::ir::ValueId>(v)).type;
    if (!t.rankKnown) return false;
    for (int64_t d : t.shape)
      if (d < 0) return false;
    if (rammer::ir::numElements(t.shape) > kMaxElements) return false;
  }
  return true;
}

// Small enough to build and run as generated code on every input.
constexpr size_t kMaxHostNodes = 16;

// A wrong answer on finite numbers is a finding; NaN and infinity are the
// model's own (a fuzzed weight), not the code's.
bool wrongAnswer(const rammer::pipeline::StagesResult& r) {
  if (!r.report.ok() || !r.artifacts.run || !r.artifacts.run->check) return false;
  for (const rammer::ir::Tensor& t : r.artifacts.run->outputs)
    if (t.dtype() == rammer::ir::DType::Float32)
      for (float x : t.values<float>())
        if (!std::isfinite(x)) return false;
  return !r.artifacts.run->check->match;
}

// A failure of the generated code itself: a compile error in it (a file and
// line), a crash or time-out of the program, a deadlock. Refusals (a memory
// budget, an unsupported operator) are not.
bool generatedCodeFailed(const rammer::pipeline::StagesResult& r) {
  if (r.report.failedStage != rammer::pipeline::Stage::Run) return false;
  for (const rammer::ir::Diagnostic& d : r.report.errors()) {
    const std::string& m = d.message;
    if (m.find("deadlock") != std::string::npos || m.rfind("the host program", 0) == 0 ||
        m.find(".cpp:") != std::string::npos)
      return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rammer;
  auto graph = onnx_import::importModelFromBytes(std::string(reinterpret_cast<const char*>(data), size), {}, "fuzz.onnx");
  if (!graph || !small(*graph)) return 0;
  pipeline::Artifacts given;
  given.original = std::make_shared<const ir::Graph>(std::move(graph).value());
  for (const std::string& policy : schedule::policyNames()) {
    pipeline::Options o;
    o.policy = schedule::parsePolicy(policy).value();
    o.run.target = pipeline::RunTarget::Emulator;
    o.run.inputSeed = 1;
    if (wrongAnswer(pipeline::runStages(o, given, pipeline::Stage::Optimize, pipeline::Stage::Run))) __builtin_trap();
  }
  if (given.original->numNodes() <= kMaxHostNodes) {
    pipeline::Options o;
    o.run.target = pipeline::RunTarget::Host;
    o.run.inputSeed = 1;
    o.run.host.repeat = 1;
    o.run.host.measureTrace = false;
    o.run.host.timeoutSeconds = 60;
    o.run.host.build.cacheDir = std::filesystem::temp_directory_path() / "rammer-fuzz-host-cache";
    const pipeline::StagesResult r = pipeline::runStages(o, given, pipeline::Stage::Optimize, pipeline::Stage::Run);
    if (wrongAnswer(r) || generatedCodeFailed(r)) __builtin_trap();
  }
  return 0;
}

// ONNX bytes -> the whole pipeline: passes, every policy, the validator, the
// simulator and the CPU emulator on seeded inputs, whose outputs must match
// the reference executor's. Models past a small size are skipped: the
// fuzzer looks for wrong answers and crashes, not for slow big models.
#include <cmath>
#include <cstddef>
#include <cstdint>
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rammer;
  auto graph = onnx_import::importModelFromBytes(std::string(reinterpret_cast<const char*>(data), size), {}, "fuzz.onnx");
  if (!graph || !small(*graph)) return 0;
  pipeline::Artifacts given;
  given.original = std::make_shared<const ir::Graph>(std::move(graph).value());
  for (const std::string& policy : schedule::policyNames()) {
    pipeline::Options o;
    o.policy = policy;
    o.run.target = pipeline::RunTarget::Emulator;
    o.run.inputSeed = 1;
    const pipeline::StagesResult r = pipeline::runStages(o, given, pipeline::Stage::Optimize, pipeline::Stage::Run);
    if (!r.report.ok() || !r.artifacts.run || !r.artifacts.run->check) continue;
    // A wrong answer on finite numbers is a finding.
    bool finite = true;
    for (const ir::Tensor& t : r.artifacts.run->outputs)
      if (t.dtype() == ir::DType::Float32)
        for (float x : t.values<float>()) finite = finite && std::isfinite(x);
    if (finite && !r.artifacts.run->check->match) __builtin_trap();
  }
  return 0;
}

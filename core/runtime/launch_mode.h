#pragma once
// How a run's kernel launches reach the GPU. A plan of many programs
// (RammerBase: one per operator) pays the launch cost once per program per
// run; captured once into a CUDA graph (HIP graph) and replayed, a run is
// one launch, which is what torch.compile's reduce-overhead mode and
// TensorRT do (docs/CODEGEN.md, "Launch modes").
#include <optional>
#include <string_view>

namespace rammer::runtime {

enum class LaunchMode {
  Stream,  // every memset and launch issued on the stream, run after run
  Graph,   // one run's memsets and launches captured once, replayed per run
};

// "stream" / "graph": the CLI's, the harness's and the JSON's spelling.
const char* launchModeName(LaunchMode mode);
std::optional<LaunchMode> parseLaunchMode(std::string_view name);

}  // namespace rammer::runtime

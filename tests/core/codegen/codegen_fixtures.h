#pragma once
// Sample models planned the way the CLI plans them (batch 1, standard
// passes, H100 preset), and helpers to find and run the GPU compilers.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/device/device_spec.h"
#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/policy.h"

namespace rammer::testing {

// The samples whose generated CUDA the NVRTC test compiles. randwire (12 s
// on two cores: Means of up to 9 inputs fused into elementwise kernels) but
// not the other two added with it: inception_v3's many distinct conv shapes
// (1x7, 7x1, 1x3, 3x1 among them) take about 50 s for the four compiles, and
// squeezenet (15 s) only has kinds of kernel the other CNNs have. Both passed
// when tried, and the same source runs on the CPU in HostSample with
// RAMMER_HOST_ALL=1.
inline std::vector<std::string> codegenSampleNames() {
  return {"sample_cnn", "inception_block", "nasbench_cells", "alexnet", "resnext29_cifar",
          "nasnet_cifar", "deepspeech2", "lstm_tc", "seq2seq", "randwire"};
}

// Committed small models live in samples/models, generated ones in the build.
inline std::filesystem::path samplePath(const std::string& name) {
  const std::filesystem::path committed = std::filesystem::path(RAMMER_SOURCE_DIR) / "samples/models" / (name + ".onnx");
  if (std::filesystem::exists(committed)) return committed;
  return std::filesystem::path(RAMMER_BINARY_DIR) / "samples" / (name + ".onnx");
}

struct PlannedSample {
  ir::Graph graph;  // optimized
  schedule::Plan plan;
};

inline ir::Graph optimizedSampleGraph(const std::string& name, const passes::PassOptions& passOptions = {}) {
  onnx_import::ImportOptions options;
  options.batch = 1;
  auto g = onnx_import::importModel(samplePath(name), options);
  if (!g) throw std::runtime_error(g.errorText());
  passes::PassContext ctx;
  auto records = passes::standardPipeline(passOptions).run(*g, ctx);
  if (!records) throw std::runtime_error(records.errorText());
  return std::move(g).value();
}

inline schedule::Plan planSample(const ir::Graph& graph, const std::string& policy, const device::DeviceSpec& device,
                                 const schedule::Constraints& constraints = {}) {
  auto p = schedule::makePolicy(policy);
  if (!p) throw std::runtime_error(p.errorText());
  auto plan = (*p)->schedule(graph, device, constraints);
  if (!plan) throw std::runtime_error(plan.errorText());
  return std::move(plan).value();
}

inline schedule::Plan planSample(const ir::Graph& graph, const std::string& policy, const std::string& device = "h100",
                                 const schedule::Constraints& constraints = {}) {
  auto d = device::loadDevice(device);
  if (!d) throw std::runtime_error(d.errorText());
  return planSample(graph, policy, *d, constraints);
}

// IOS with operator merge (a plan that carries its own, rewritten graph).
inline schedule::Plan planIosMerged(const ir::Graph& graph, const std::string& device = "h100") {
  schedule::PolicyOptions options;
  options.ios.variant = "merge";
  auto p = schedule::makePolicy("ios", options);
  auto d = device::loadDevice(device);
  if (!p || !d) throw std::runtime_error(!p ? p.errorText() : d.errorText());
  auto plan = (*p)->schedule(graph, *d, {});
  if (!plan) throw std::runtime_error(plan.errorText());
  if (!plan->graph) throw std::runtime_error("IOS merged nothing on " + graph.name);
  return std::move(plan).value();
}

// The first existing file of `candidates`, or "" when none is installed.
inline std::string findTool(const std::vector<std::string>& candidates) {
  for (const auto& c : candidates)
    if (std::filesystem::exists(c)) return c;
  return {};
}

inline std::string nvccPath() { return findTool({"/usr/local/cuda/bin/nvcc"}); }
inline std::string clangHipPath() { return findTool({"/usr/bin/clang++-15", "/usr/lib/llvm-15/bin/clang++"}); }

// Debian's ROCm layout: HIP headers under /usr/include, bitcode libraries here.
inline constexpr const char* kRocmDeviceLibs = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

// clang-15 compiling HIP for gfx90a with Debian's ROCm, warnings as errors.
inline std::string hipCompileCommand(const std::string& clang) {
  return clang + " -x hip --offload-arch=gfx90a --rocm-path=/usr --rocm-device-lib-path=" + kRocmDeviceLibs +
         " -std=c++17 -O2 -Wall -Werror";
}

// Runs a shell command; returns its exit status and (merged) output.
inline std::pair<int, std::string> runCommand(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace rammer::testing

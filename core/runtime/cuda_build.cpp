#include "core/runtime/cuda_build.h"

#include <fmt/format.h>

#include <list>
#include <mutex>

#include "core/codegen/code_generator.h"

namespace rammer::runtime {

namespace {

struct CacheEntry {
  std::string hash, arch, nvrtcVersion;
  size_t sourceSize = 0;
  std::shared_ptr<const CompiledProgram> compiled;
};

// Most recent first. A plan's cubin is at most a few MB; a handful covers
// the studio's back-and-forth between plans and the plain/instrumented pair.
constexpr size_t kCacheEntries = 16;

std::mutex& cacheMutex() {
  static std::mutex m;
  return m;
}
std::list<CacheEntry>& cache() {
  static std::list<CacheEntry> entries;
  return entries;
}

}  // namespace

std::string sourceHash(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

ir::Result<std::shared_ptr<const CompiledProgram>> compileCached(const NvrtcCompiler& nvrtc,
                                                                 const codegen::GeneratedProgram& program,
                                                                 const std::string& arch, bool* cached) {
  const std::string hash = sourceHash(program.source), version = nvrtc.version();
  auto same = [&](const CacheEntry& e) {
    return e.hash == hash && e.arch == arch && e.nvrtcVersion == version && e.sourceSize == program.source.size();
  };
  {
    std::lock_guard lock(cacheMutex());
    auto& entries = cache();
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (same(*it)) {
        entries.splice(entries.begin(), entries, it);
        if (cached) *cached = true;
        return entries.front().compiled;
      }
  }
  // Compiled outside the lock: two different plans compile side by side.
  auto compiled = compileProgram(nvrtc, program, arch);
  if (!compiled) return compiled.errors();
  auto shared = std::make_shared<const CompiledProgram>(std::move(compiled).value());
  {
    std::lock_guard lock(cacheMutex());
    auto& entries = cache();
    entries.push_front(CacheEntry{hash, arch, version, program.source.size(), shared});
    if (entries.size() > kCacheEntries) entries.pop_back();
  }
  if (cached) *cached = false;
  return shared;
}

ir::Result<CudaBuild> compileGenerated(schedule::Plan& plan, std::shared_ptr<const codegen::GeneratedProgram> program,
                                       const NvrtcCompiler& nvrtc, const std::string& arch) {
  CudaBuild out;
  auto compiled = compileCached(nvrtc, *program, arch, &out.cached);
  if (!compiled) return compiled.errors();
  out.compiled = std::move(compiled).value();
  auto resources = applyCompiledResources(plan, *program, out.compiled->kernels, out.compiled->functions);
  if (!resources) return resources.errors();
  out.resources = std::move(resources).value();
  out.sourceHash = sourceHash(program->source);
  out.program = std::move(program);
  return out;
}

ir::Result<CudaBuild> buildCuda(schedule::Plan& plan, const ir::Graph& given, const NvrtcCompiler& nvrtc,
                                const std::string& arch, bool instrument) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  codegen::CodegenOptions options;
  options.target = codegen::Target::Cuda;
  options.instrument = instrument;
  auto program = codegen::generateProgram(plan, graph, options);
  if (!program) return program.errors();
  auto shared = std::make_shared<const codegen::GeneratedProgram>(std::move(program).value());
  if (!instrument) return compileGenerated(plan, std::move(shared), nvrtc, arch);
  schedule::Plan scratch = plan;
  return compileGenerated(scratch, std::move(shared), nvrtc, arch);
}

size_t compileCacheSize() {
  std::lock_guard lock(cacheMutex());
  return cache().size();
}

void clearCompileCache() {
  std::lock_guard lock(cacheMutex());
  cache().clear();
}

}  // namespace rammer::runtime

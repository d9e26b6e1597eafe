#include "core/runtime/gpu_execution.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/runtime/cuda_build.h"
#include "core/runtime/timing_decoder.h"

namespace rammer::runtime {

namespace {

// Holds an exclusive flock on a file for its lifetime; an empty name holds nothing.
class GpuLock {
 public:
  static ir::Result<GpuLock> acquire(const std::string& file) {
    GpuLock lock;
    if (file.empty()) return lock;
    lock.fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock.fd_ < 0) return ir::makeError(fmt::format("{}: cannot open the GPU lock file: {}", file, std::strerror(errno)));
    while (::flock(lock.fd_, LOCK_EX) != 0)
      if (errno != EINTR) return ir::makeError(fmt::format("{}: cannot lock: {}", file, std::strerror(errno)));
    return lock;
  }
  GpuLock() = default;
  GpuLock(GpuLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  GpuLock& operator=(GpuLock&&) = delete;
  GpuLock(const GpuLock&) = delete;
  ~GpuLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
  }

 private:
  int fd_ = -1;
};

}  // namespace

ir::Result<GpuExecution> executeOnGpu(schedule::Plan& plan, const ir::Graph& given,
                                      const std::vector<ir::Tensor>& inputs, const GpuExecutionOptions& options) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  const CudaCapability capability = probeCuda(options.libraries);
  if (!capability.canRun()) return ir::makeError("cannot run on a GPU: " + capability.message);
  auto driver = CudaDriver::load(options.libraries.driverLibrary);
  if (!driver) return driver.errors();
  auto nvrtc = NvrtcCompiler::load(options.libraries.nvrtcLibraries);
  if (!nvrtc) return nvrtc.errors();
  auto runner = CudaRunner::open(driver.value());
  if (!runner) return runner.errors();

  GpuExecution out;
  out.deviceName = (*runner)->deviceName();
  out.arch = (*runner)->arch();

  auto plain = buildCuda(plan, graph, **nvrtc, out.arch);
  if (!plain) return plain.errors();
  out.resources = plain->resources;
  out.sourceHash = plain->sourceHash;
  {
    auto lock = GpuLock::acquire(options.lockFile);
    if (!lock) return lock.errors();
    auto run = (*runner)->run(graph, *plain->program, *plain->compiled, inputs, options.run);
    if (!run) return run.errors();
    out.run = std::move(run).value();
  }

  if (options.measureTrace) {
    auto timed = buildCuda(plan, graph, **nvrtc, out.arch, /*instrument=*/true);
    if (!timed) return timed.errors();
    GpuRunOptions once = options.run;
    once.warmup = 1;
    once.repeat = 1;
    auto lock = GpuLock::acquire(options.lockFile);
    if (!lock) return lock.errors();
    auto recorded = (*runner)->run(graph, *timed->program, *timed->compiled, inputs, once);
    if (!recorded) return recorded.errors();
    if (!recorded->latencyUs.empty()) out.instrumentedLatencyUs = recorded->latencyUs.front();
    auto trace = decodeTiming(plan, *timed->program, recorded->timing, {out.deviceName, (*runner)->sms()});
    if (!trace) return trace.errors();
    out.trace = std::move(trace).value();
  }
  return out;
}

}  // namespace rammer::runtime

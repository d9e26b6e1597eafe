#include "core/runtime/cuda_runner.h"

#include <fmt/core.h>

#include <array>
#include <chrono>
#include <thread>

#include "core/codegen/zero_ranges.h"
#include "core/ir/words.h"

namespace rammer::runtime {

namespace {

// What one run() holds on the device, released at the end unless the
// runner is wedged (releasing would wait for a kernel that never ends).
struct DeviceState {
  DeviceState(const CudaDriver& driver, const bool& wedgedFlag) : cu(driver), wedged(wedgedFlag) {}
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;
  const CudaDriver& cu;
  const bool& wedged;
  cu::Module module = nullptr;
  cu::Stream stream = nullptr;
  std::vector<cu::DevicePtr> allocations;
  std::vector<cu::Event> events;

  ~DeviceState() {
    if (wedged) return;
    for (cu::Event e : events) cu.cuEventDestroy(e);
    if (stream) cu.cuStreamDestroy(stream);
    for (cu::DevicePtr p : allocations) cu.cuMemFree(p);
    if (module) cu.cuModuleUnload(module);
  }
  ir::Result<cu::DevicePtr> alloc(size_t bytes) {
    cu::DevicePtr p = 0;
    // cuMemAlloc refuses 0 bytes; an empty buffer still needs an address.
    if (cu::Result r = cu.cuMemAlloc(&p, std::max<size_t>(bytes, 16)); r != cu::kSuccess)
      return ir::makeError(cu.errorText(r, fmt::format("cuMemAlloc({} bytes)", bytes)));
    allocations.push_back(p);
    return p;
  }
};

}  // namespace

ir::Result<std::unique_ptr<CudaRunner>> CudaRunner::open(std::shared_ptr<const CudaDriver> driver, int ordinal) {
  if (!driver) return ir::makeError("no CUDA driver");
  const CudaDriver& d = *driver;
  if (cu::Result r = d.cuInit(0); r != cu::kSuccess)
    return ir::makeError(r == cu::kErrorNoDevice ? "CUDA driver loaded but no GPU" : d.errorText(r, "cuInit"));
  int count = 0;
  if (cu::Result r = d.cuDeviceGetCount(&count); r != cu::kSuccess) return ir::makeError(d.errorText(r, "cuDeviceGetCount"));
  if (ordinal < 0 || ordinal >= count)
    return ir::makeError(fmt::format("GPU {} requested, {} present", ordinal, count));
  std::unique_ptr<CudaRunner> runner(new CudaRunner());
  runner->driver_ = std::move(driver);
  if (cu::Result r = d.cuDeviceGet(&runner->device_, ordinal); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuDeviceGet"));
  std::array<char, 256> name{};
  if (d.cuDeviceGetName(name.data(), static_cast<int>(name.size()) - 1, runner->device_) == cu::kSuccess)
    runner->name_ = name.data();
  d.cuDeviceGetAttribute(&runner->sms_, cu::kAttrMultiprocessorCount, runner->device_);
  d.cuDeviceGetAttribute(&runner->major_, cu::kAttrComputeCapabilityMajor, runner->device_);
  d.cuDeviceGetAttribute(&runner->minor_, cu::kAttrComputeCapabilityMinor, runner->device_);
  // The primary context: the one CUPTI and any other library in the process share.
  if (cu::Result r = d.cuDevicePrimaryCtxRetain(&runner->context_, runner->device_); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuDevicePrimaryCtxRetain"));
  return runner;
}

CudaRunner::~CudaRunner() {
  if (context_ && !wedged_) driver_->cuDevicePrimaryCtxRelease(device_);
}

ir::Result<GpuRun> CudaRunner::run(const ir::Graph& graph, const codegen::GeneratedProgram& program,
                                   const CompiledProgram& compiled, const std::vector<ir::Tensor>& inputs,
                                   const GpuRunOptions& options) {
  if (wedged_)
    return ir::makeError("the GPU is still busy with a run that did not finish; restart the program to use it again");
  if (options.repeat < 1) return ir::makeError("repeat must be at least 1");
  if (inputs.size() != graph.inputs().size())
    return ir::makeError(fmt::format("the model has {} inputs, {} given", graph.inputs().size(), inputs.size()));
  const CudaDriver& d = *driver_;
  auto fail = [&d](cu::Result r, const std::string& call) { return ir::makeError(d.errorText(r, call)); };
  if (cu::Result r = d.cuCtxSetCurrent(context_); r != cu::kSuccess) return fail(r, "cuCtxSetCurrent");

  DeviceState s(d, wedged_);
  if (cu::Result r = d.cuModuleLoadData(&s.module, compiled.cubin.data()); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuModuleLoadData") + " (compiled for " + compiled.arch + ", this GPU is " +
                         arch() + ")");

  // Functions, and the driver's word on how many vEUs fit.
  GpuRun out;
  std::vector<cu::Function> functions;
  std::vector<ir::Diagnostic> refused;
  for (const codegen::KernelLaunch& l : program.launches) {
    cu::Function f = nullptr;
    if (cu::Result r = d.cuModuleGetFunction(&f, s.module, l.kernel.c_str()); r != cu::kSuccess)
      return fail(r, "cuModuleGetFunction(" + l.kernel + ")");
    // Above the default 48 KiB a kernel must opt in to dynamic shared memory.
    if (l.dynamicSharedBytes > 48 * 1024) {
      if (cu::Result r = d.cuFuncSetAttribute(f, cu::kFuncAttrMaxDynamicSharedSizeBytes,
                                               static_cast<int>(l.dynamicSharedBytes));
          r != cu::kSuccess)
        return fail(r, fmt::format("cuFuncSetAttribute({} B dynamic shared memory for {})", l.dynamicSharedBytes,
                                   l.kernel));
    }
    int blocks = 0, regs = 0;
    d.cuFuncGetAttribute(&regs, cu::kFuncAttrNumRegs, f);
    if (cu::Result r = d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, l.blockThreads,
                                                                     static_cast<size_t>(l.dynamicSharedBytes));
        r != cu::kSuccess)
      return fail(r, "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + l.kernel + ")");
    if (blocks == 0)
      refused.push_back(ir::makeError(fmt::format(
          "program {} (kernel {}) cannot run on {}: not one block of {} threads fits on an SM ({} registers, {} B "
          "dynamic shared)",
          l.program, l.kernel, name_, l.blockThreads, regs, l.dynamicSharedBytes)));
    else if (l.persistent && l.gridBlocks > blocks * sms_)
      refused.push_back(ir::makeError(fmt::format(
          "program {} (kernel {}) has {} vEUs but the driver fits only {} blocks per SM x {} SMs = {} on {} "
          "({} registers, {} threads, {} B dynamic shared); its barriers could deadlock, so it is refused",
          l.program, l.kernel, l.gridBlocks, blocks, sms_, blocks * sms_, name_, regs, l.blockThreads,
          l.dynamicSharedBytes)));
    functions.push_back(f);
    out.blocksPerSM.push_back(blocks);
    out.registers.push_back(regs);
  }
  if (!refused.empty()) return refused;

  // Buffers: one allocation per storage; views take their storage's address.
  const auto& buffers = program.buffers;
  std::vector<cu::DevicePtr> address(buffers.size(), 0);
  auto storageOf = [&](size_t i) {
    const int32_t st = buffers[i].storage;
    return st < 0 ? static_cast<int32_t>(i) : st;
  };
  // The buffers launches clear live side by side in one arena (zero_ranges.h).
  auto zero = codegen::layOutZeroedBuffers(buffers, program.launches);
  if (!zero) return zero.errors();
  cu::DevicePtr arena = 0;
  if (zero->arenaWords > 0) {
    auto p = s.alloc(static_cast<size_t>(zero->arenaWords) * sizeof(float));
    if (!p) return p.errors();
    arena = *p;
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (storageOf(i) != static_cast<int32_t>(i)) continue;
    if (zero->arenaOffset[i] >= 0) {
      address[i] = arena + static_cast<cu::DevicePtr>(zero->arenaOffset[i]) * sizeof(float);
      continue;
    }
    auto p = s.alloc(static_cast<size_t>(std::max<int64_t>(buffers[i].numel, 0)) * sizeof(float));
    if (!p) return p.errors();
    address[i] = *p;
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const int32_t st = storageOf(i);
    if (st < 0 || static_cast<size_t>(st) >= buffers.size() || storageOf(static_cast<size_t>(st)) != st)
      return ir::makeError(fmt::format("buffer {} ('{}') is a view of buffer {}, which is not a storage", i,
                                       buffers[i].name, st));
    if (buffers[i].numel > buffers[static_cast<size_t>(st)].numel)
      return ir::makeError(fmt::format("buffer '{}' ({} elements) is larger than its storage '{}' ({})",
                                       buffers[i].name, buffers[i].numel, buffers[static_cast<size_t>(st)].name,
                                       buffers[static_cast<size_t>(st)].numel));
    address[i] = address[static_cast<size_t>(st)];
  }
  auto upload = [&](cu::DevicePtr dst, const void* src, size_t bytes, const std::string& what) -> ir::Result<bool> {
    if (bytes == 0) return true;
    if (cu::Result r = d.cuMemcpyHtoD(dst, src, bytes); r != cu::kSuccess) return fail(r, "uploading " + what);
    return true;
  };
  auto table = s.alloc(address.size() * sizeof(cu::DevicePtr));
  if (!table) return table.errors();
  if (auto ok = upload(*table, address.data(), address.size() * sizeof(cu::DevicePtr), "the buffer table"); !ok)
    return ok.errors();

  // Weights and inputs.
  for (size_t i = 0; i < buffers.size(); ++i) {
    const codegen::BufferInfo& b = buffers[i];
    const ir::Tensor* source = nullptr;
    std::string what;
    if (b.kind == codegen::BufferInfo::Kind::Weight) {
      if (b.value < 0 || static_cast<size_t>(b.value) >= graph.numValues() || !graph.value(b.value).constant)
        return ir::makeError("weight buffer '" + b.name + "' has no constant data in the graph");
      source = &*graph.value(b.value).constant;
      what = "weight '" + b.name + "'";
    } else if (b.kind == codegen::BufferInfo::Kind::Input) {
      if (b.inputIndex >= 0 && static_cast<size_t>(b.inputIndex) < inputs.size())
        source = &inputs[static_cast<size_t>(b.inputIndex)];
      for (size_t k = 0; k < graph.inputs().size() && !source; ++k)
        if (graph.inputs()[k] == b.value) source = &inputs[k];
      if (!source) return ir::makeError("input buffer '" + b.name + "' is not an input of the graph");
      what = "input '" + b.name + "'";
    } else if (b.kind == codegen::BufferInfo::Kind::Table) {
      // The persistent kernels' instruction tables (int32 words): data, not code.
      if (static_cast<int64_t>(program.tableWords.size()) > b.numel)
        return ir::makeError(fmt::format("the instruction table has {} words but its buffer '{}' holds {}",
                                         program.tableWords.size(), b.name, b.numel));
      if (auto ok = upload(address[i], program.tableWords.data(), program.tableWords.size() * sizeof(int32_t),
                           "the instruction table");
          !ok)
        return ok.errors();
      continue;
    } else {
      continue;
    }
    auto data = ir::toWords(*source, b.numel, what);
    if (!data) return data.errors();
    if (auto ok = upload(address[i], data->data(), data->size() * sizeof(float), what); !ok) return ok.errors();
  }

  // Step counters start at zero once; runs tell old steps apart by epoch.
  const size_t stepWords = static_cast<size_t>(std::max<int64_t>(program.numSteps, 0));
  auto steps = s.alloc(stepWords * sizeof(uint64_t));
  if (!steps) return steps.errors();
  const size_t timingWords = static_cast<size_t>(std::max<int64_t>(program.numTimedEvents, 0)) * 3;
  cu::DevicePtr timing = 0;
  if (timingWords > 0) {
    auto t = s.alloc(timingWords * sizeof(uint64_t));
    if (!t) return t.errors();
    timing = *t;
  }
  if (cu::Result r = d.cuStreamCreate(&s.stream, cu::kStreamNonBlocking); r != cu::kSuccess)
    return fail(r, "cuStreamCreate");
  if (cu::Result r = d.cuMemsetD32Async(*steps, 0, std::max<size_t>(stepWords, 1) * 2, s.stream); r != cu::kSuccess)
    return fail(r, "clearing the step counters");
  // One event before the first launch and one after each launch: latency
  // from the first to the last, and the watchdog finds which one hangs.
  s.events.resize(program.launches.size() + 1, nullptr);
  for (cu::Event& e : s.events)
    if (cu::Result r = d.cuEventCreate(&e, cu::kEventDefault); r != cu::kSuccess) return fail(r, "cuEventCreate");

  // Warm-up runs, timed runs, then (instrumented programs only) one more
  // run that records rTask timings, so recording never skews the latency.
  const int warmup = std::max(options.warmup, 0);
  const int runs = warmup + options.repeat + (timing ? 1 : 0);
  for (int run = 0; run < runs; ++run) {
    unsigned long long epoch = static_cast<unsigned long long>(run) + 1;
    const bool recording = timing && run == runs - 1;
    if (recording)
      if (cu::Result r = d.cuMemsetD32Async(timing, 0, timingWords * 2, s.stream); r != cu::kSuccess)
        return fail(r, "clearing the timing buffer");
    if (cu::Result r = d.cuEventRecord(s.events[0], s.stream); r != cu::kSuccess) return fail(r, "cuEventRecord");
    for (size_t i = 0; i < program.launches.size(); ++i) {
      const codegen::KernelLaunch& l = program.launches[i];
      for (const codegen::WordRange& c : zero->clears[i]) {
        const cu::DevicePtr at = arena + static_cast<cu::DevicePtr>(c.offset) * sizeof(float);
        if (cu::Result r = d.cuMemsetD32Async(at, 0, static_cast<size_t>(c.words), s.stream); r != cu::kSuccess)
          return fail(r, fmt::format("zeroing the split-K outputs of launch {}", i));
      }
      cu::DevicePtr bufferArg = *table;
      cu::DevicePtr stepsArg = *steps;
      cu::DevicePtr timingArg = recording ? timing : 0;  // the kernel records only when non-null
      int launchIndex = static_cast<int>(i);  // picks the operator in shared RammerBase kernels
      std::array<void*, 5> args = {&bufferArg, &stepsArg, &epoch, &timingArg, &launchIndex};
      if (cu::Result r = d.cuLaunchKernel(functions[i], static_cast<unsigned>(l.gridBlocks), 1, 1,
                                          static_cast<unsigned>(l.blockThreads), 1, 1,
                                          static_cast<unsigned>(l.dynamicSharedBytes), s.stream, args.data(), nullptr);
          r != cu::kSuccess)
        return fail(r, fmt::format("launching program {} ({} x {} threads)", l.program, l.gridBlocks, l.blockThreads));
      if (cu::Result r = d.cuEventRecord(s.events[i + 1], s.stream); r != cu::kSuccess) return fail(r, "cuEventRecord");
    }

    // Watchdog: the host cannot interrupt a kernel that waits on a barrier
    // forever, but it can stop waiting for it and say which program hangs.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(options.watchdogSeconds));
    for (size_t i = 0; i < program.launches.size(); ++i) {
      for (;;) {
        const cu::Result r = d.cuEventQuery(s.events[i + 1]);
        if (r == cu::kSuccess) break;
        if (r != cu::kErrorNotReady)
          return fail(r, fmt::format("running program {} (kernel {})", program.launches[i].program,
                                     program.launches[i].kernel));
        if (std::chrono::steady_clock::now() > deadline) {
          wedged_ = true;
          // A dynamic program waits on its ready queue, not on barriers.
          const bool queue = program.launches[i].table.queue >= 0;
          return ir::makeError(fmt::format("program {} did not finish in {:g} s ({}?)", program.launches[i].program,
                                           options.watchdogSeconds,
                                           queue ? "a ready-queue gate that never opens" : "barrier deadlock"));
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
    if (run >= warmup && !recording && !program.launches.empty()) {
      float ms = 0;
      if (cu::Result r = d.cuEventElapsedTime(&ms, s.events[0], s.events.back()); r != cu::kSuccess)
        return fail(r, "cuEventElapsedTime");
      out.latencyUs.push_back(static_cast<double>(ms) * 1000.0);
    }
  }

  // Outputs, in graph order, from whatever buffer holds each output value.
  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    const ir::ValueId v = graph.outputs()[k];
    const ir::Value& value = graph.value(v);
    int32_t found = -1;
    for (size_t i = 0; i < buffers.size() && found < 0; ++i)
      if (buffers[i].outputIndex == static_cast<int32_t>(k)) found = static_cast<int32_t>(i);
    // Programs that do not fill outputIndex: the buffer of the value, an Output one first.
    if (found < 0)
      for (size_t i = 0; i < buffers.size(); ++i)
        if (buffers[i].value == v && (found < 0 || buffers[i].kind == codegen::BufferInfo::Kind::Output))
          found = static_cast<int32_t>(i);
    if (found < 0) return ir::makeError("graph output '" + value.name + "' has no buffer in the program");
    const codegen::BufferInfo& b = buffers[static_cast<size_t>(found)];
    if (!value.type.fullyKnown() || ir::numElements(value.type.shape) != b.numel)
      return ir::makeError(fmt::format("graph output '{}' ({}) does not match its buffer of {} elements", value.name,
                                       ir::typeToString(value.type), b.numel));
    std::vector<float> host(static_cast<size_t>(b.numel));
    if (!host.empty())
      if (cu::Result r = d.cuMemcpyDtoH(host.data(), address[static_cast<size_t>(found)], host.size() * sizeof(float));
          r != cu::kSuccess)
        return fail(r, "downloading output '" + value.name + "'");
    out.outputs.push_back(ir::fromWords(value.type.dtype, value.type.shape, host));
  }
  if (timing) {
    out.timing.resize(timingWords);
    if (cu::Result r = d.cuMemcpyDtoH(out.timing.data(), timing, timingWords * sizeof(uint64_t)); r != cu::kSuccess)
      return fail(r, "downloading the timing buffer");
  }
  return out;
}

}  // namespace rammer::runtime

#include "core/runtime/cuda_runner.h"

#include <fmt/core.h>

#include <array>

#include "core/codegen/zero_ranges.h"
#include "core/ir/words.h"
#include "core/runtime/cuda_graph.h"
#include "core/runtime/cuda_run_loop.h"

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
  CapturedGraph graph;

  ~DeviceState() {
    if (wedged) return;
    destroyGraph(cu, graph);
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

namespace {

// Each launch's function, checked with the driver (the final word on
// occupancy): a kernel that fits on no SM, or a persistent grid whose vEUs
// cannot all be resident, is refused.
ir::Result<std::vector<cu::Function>> loadFunctions(const CudaDriver& d, cu::Module module,
                                                    const codegen::GeneratedProgram& program, const std::string& device,
                                                    int sms, GpuRun& out) {
  std::vector<cu::Function> functions;
  std::vector<ir::Diagnostic> refused;
  for (const codegen::KernelLaunch& l : program.launches) {
    cu::Function f = nullptr;
    if (cu::Result r = d.cuModuleGetFunction(&f, module, l.kernel.c_str()); r != cu::kSuccess)
      return ir::makeError(d.errorText(r, "cuModuleGetFunction(" + l.kernel + ")"));
    // Above the default 48 KiB a kernel must opt in to dynamic shared memory.
    if (l.dynamicSharedBytes > 48 * 1024) {
      if (cu::Result r = d.cuFuncSetAttribute(f, cu::kFuncAttrMaxDynamicSharedSizeBytes,
                                               static_cast<int>(l.dynamicSharedBytes));
          r != cu::kSuccess)
        return ir::makeError(d.errorText(
            r, fmt::format("cuFuncSetAttribute({} B dynamic shared memory for {})", l.dynamicSharedBytes, l.kernel)));
    }
    int blocks = 0, regs = 0;
    d.cuFuncGetAttribute(&regs, cu::kFuncAttrNumRegs, f);
    if (cu::Result r = d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, l.blockThreads,
                                                                     static_cast<size_t>(l.dynamicSharedBytes));
        r != cu::kSuccess)
      return ir::makeError(d.errorText(r, "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + l.kernel + ")"));
    if (blocks == 0)
      refused.push_back(ir::makeError(fmt::format(
          "program {} (kernel {}) cannot run on {}: not one block of {} threads fits on an SM ({} registers, {} B "
          "dynamic shared)",
          l.program, l.kernel, device, l.blockThreads, regs, l.dynamicSharedBytes)));
    else if (l.persistent && l.gridBlocks > blocks * sms)
      refused.push_back(ir::makeError(fmt::format(
          "program {} (kernel {}) has {} vEUs but the driver fits only {} blocks per SM x {} SMs = {} on {} "
          "({} registers, {} threads, {} B dynamic shared); its barriers could deadlock, so it is refused",
          l.program, l.kernel, l.gridBlocks, blocks, sms, blocks * sms, device, regs, l.blockThreads,
          l.dynamicSharedBytes)));
    functions.push_back(f);
    out.blocksPerSM.push_back(blocks);
    out.registers.push_back(regs);
  }
  if (!refused.empty()) return refused;
  return functions;
}

// One allocation per storage; views take their storage's address (plus
// their offset: a Concat's input placed in its output), and the
// buffers launches clear live side by side in one arena (zero_ranges.h).
ir::Result<bool> placeBuffers(DeviceState& s, const std::vector<codegen::BufferInfo>& buffers, RunBuffers& b) {
  b.address.assign(buffers.size(), 0);
  auto storageOf = [&](size_t i) {
    const int32_t st = buffers[i].storage;
    return st < 0 ? static_cast<int32_t>(i) : st;
  };
  if (b.zero.arenaWords > 0) {
    auto p = s.alloc(static_cast<size_t>(b.zero.arenaWords) * sizeof(float));
    if (!p) return p.errors();
    b.arena = *p;
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (storageOf(i) != static_cast<int32_t>(i)) continue;
    if (b.zero.arenaOffset[i] >= 0) {
      b.address[i] = b.arena + static_cast<cu::DevicePtr>(b.zero.arenaOffset[i]) * sizeof(float);
      continue;
    }
    auto p = s.alloc(static_cast<size_t>(std::max<int64_t>(buffers[i].numel, 0)) * sizeof(float));
    if (!p) return p.errors();
    b.address[i] = *p;
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const int32_t st = storageOf(i);
    if (st < 0 || static_cast<size_t>(st) >= buffers.size() || storageOf(static_cast<size_t>(st)) != st)
      return ir::makeError(fmt::format("buffer {} ('{}') is a view of buffer {}, which is not a storage", i,
                                       buffers[i].name, st));
    const int64_t offset = buffers[i].storageOffset;
    if (offset < 0 || offset + buffers[i].numel > buffers[static_cast<size_t>(st)].numel)
      return ir::makeError(fmt::format("buffer '{}' ({} elements at {}) does not fit its storage '{}' ({})",
                                       buffers[i].name, buffers[i].numel, offset, buffers[static_cast<size_t>(st)].name,
                                       buffers[static_cast<size_t>(st)].numel));
    b.address[i] = b.address[static_cast<size_t>(st)] + static_cast<cu::DevicePtr>(offset) * sizeof(float);
  }
  return true;
}

ir::Result<bool> upload(const CudaDriver& d, cu::DevicePtr dst, const void* src, size_t bytes,
                        const std::string& what) {
  if (bytes == 0) return true;
  return d.check(d.cuMemcpyHtoD(dst, src, bytes), "uploading " + what);
}

// The buffer table, then the weights, the inputs and the instruction table.
ir::Result<bool> uploadContents(DeviceState& s, const ir::Graph& graph, const codegen::GeneratedProgram& program,
                                const std::vector<ir::Tensor>& inputs, RunBuffers& b) {
  const CudaDriver& d = s.cu;
  auto table = s.alloc(b.address.size() * sizeof(cu::DevicePtr));
  if (!table) return table.errors();
  b.table = *table;
  if (auto ok = upload(d, b.table, b.address.data(), b.address.size() * sizeof(cu::DevicePtr), "the buffer table"); !ok)
    return ok;
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const codegen::BufferInfo& buf = program.buffers[i];
    const ir::Tensor* source = nullptr;
    std::string what;
    if (buf.kind == codegen::BufferInfo::Kind::Weight) {
      if (buf.value < 0 || static_cast<size_t>(buf.value) >= graph.numValues() || !graph.value(buf.value).constant)
        return ir::makeError("weight buffer '" + buf.name + "' has no constant data in the graph");
      source = &*graph.value(buf.value).constant;
      what = "weight '" + buf.name + "'";
    } else if (buf.kind == codegen::BufferInfo::Kind::Input) {
      if (buf.inputIndex >= 0 && static_cast<size_t>(buf.inputIndex) < inputs.size())
        source = &inputs[static_cast<size_t>(buf.inputIndex)];
      for (size_t k = 0; k < graph.inputs().size() && !source; ++k)
        if (graph.inputs()[k] == buf.value) source = &inputs[k];
      if (!source) return ir::makeError("input buffer '" + buf.name + "' is not an input of the graph");
      what = "input '" + buf.name + "'";
    } else if (buf.kind == codegen::BufferInfo::Kind::Table) {
      // The persistent kernels' instruction tables (int32 words): data, not code.
      if (static_cast<int64_t>(program.tableWords.size()) > buf.numel)
        return ir::makeError(fmt::format("the instruction table has {} words but its buffer '{}' holds {}",
                                         program.tableWords.size(), buf.name, buf.numel));
      if (auto ok = upload(d, b.address[i], program.tableWords.data(), program.tableWords.size() * sizeof(int32_t),
                           "the instruction table");
          !ok)
        return ok;
      continue;
    } else {
      continue;
    }
    auto data = ir::toWords(*source, buf.numel, what);
    if (!data) return data.errors();
    if (auto ok = upload(d, b.address[i], data->data(), data->size() * sizeof(float), what); !ok) return ok;
  }
  return true;
}

// Everything the launches address, allocated and filled.
ir::Result<RunBuffers> allocateBuffers(DeviceState& s, const ir::Graph& graph, const codegen::GeneratedProgram& program,
                                       const std::vector<ir::Tensor>& inputs) {
  RunBuffers b;
  auto zero = codegen::layOutZeroedBuffers(program.buffers, program.launches);
  if (!zero) return zero.errors();
  b.zero = std::move(zero).value();
  if (auto ok = placeBuffers(s, program.buffers, b); !ok) return ok.errors();
  if (auto ok = uploadContents(s, graph, program, inputs, b); !ok) return ok.errors();
  b.stepWords = static_cast<size_t>(std::max<int64_t>(program.numSteps, 0));
  auto steps = s.alloc(b.stepWords * sizeof(uint64_t));
  if (!steps) return steps.errors();
  b.steps = *steps;
  b.timingWords = static_cast<size_t>(std::max<int64_t>(program.numTimedEvents, 0)) * 3;
  if (b.timingWords > 0) {
    auto t = s.alloc(b.timingWords * sizeof(uint64_t));
    if (!t) return t.errors();
    b.timing = *t;
  }
  return b;
}

// The outputs, in graph order, from whatever buffer holds each output
// value, and the recording run's timing words.
ir::Result<bool> downloadResults(const CudaDriver& d, const ir::Graph& graph, const codegen::GeneratedProgram& program,
                                 const RunBuffers& b, GpuRun& out) {
  const auto& buffers = program.buffers;
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
    const codegen::BufferInfo& buf = buffers[static_cast<size_t>(found)];
    if (!value.type.fullyKnown() || ir::numElements(value.type.shape) != buf.numel)
      return ir::makeError(fmt::format("graph output '{}' ({}) does not match its buffer of {} elements", value.name,
                                       ir::typeToString(value.type), buf.numel));
    std::vector<float> host(static_cast<size_t>(buf.numel));
    if (!host.empty())
      if (auto ok =
              d.check(d.cuMemcpyDtoH(host.data(), b.address[static_cast<size_t>(found)], host.size() * sizeof(float)),
                      "downloading output '" + value.name + "'");
          !ok)
        return ok;
    out.outputs.push_back(ir::fromWords(value.type.dtype, value.type.shape, host));
  }
  if (!b.timing) return true;
  out.timing.resize(b.timingWords);
  return d.check(d.cuMemcpyDtoH(out.timing.data(), b.timing, b.timingWords * sizeof(uint64_t)),
                 "downloading the timing buffer");
}

}  // namespace

ir::Result<std::unique_ptr<CudaRunner>> CudaRunner::open(std::shared_ptr<const CudaDriver> driver, int ordinal) {
  if (!driver) return ir::makeError("no CUDA driver");
  const CudaDriver& d = *driver;
  if (cu::Result r = d.cuInit(0); r != cu::kSuccess)
    return ir::makeError(r == cu::kErrorNoDevice ? "CUDA driver loaded but no GPU" : d.errorText(r, "cuInit"));
  int count = 0;
  if (cu::Result r = d.cuDeviceGetCount(&count); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuDeviceGetCount"));
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
  if (options.launch == LaunchMode::Graph && !d.hasGraphs())
    return ir::makeError(fmt::format(
        "graph launches need the driver's stream capture and graph entry points (CUDA 11.4 and later), and {} "
        "lacks {}; stream launches work without them",
        d.library ? d.library->name() : std::string("the CUDA driver"), d.graphsMissing));
  if (cu::Result r = d.cuCtxSetCurrent(context_); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuCtxSetCurrent"));

  DeviceState s(d, wedged_);
  if (cu::Result r = d.cuModuleLoadData(&s.module, compiled.cubin.data()); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuModuleLoadData") + " (compiled for " + compiled.arch + ", this GPU is " +
                         arch() + ")");
  GpuRun out;
  auto functions = loadFunctions(d, s.module, program, name_, sms_, out);
  if (!functions) return functions.errors();
  auto buffers = allocateBuffers(s, graph, program, inputs);
  if (!buffers) return buffers.errors();
  if (cu::Result r = d.cuStreamCreate(&s.stream, cu::kStreamNonBlocking); r != cu::kSuccess)
    return ir::makeError(d.errorText(r, "cuStreamCreate"));
  // One event before a run and one after each launch: latency from the
  // first to the last, and the watchdog finds which one hangs.
  s.events.resize(std::max<size_t>(program.launches.size() + 1, 2), nullptr);
  for (cu::Event& e : s.events)
    if (cu::Result r = d.cuEventCreate(&e, cu::kEventDefault); r != cu::kSuccess)
      return ir::makeError(d.errorText(r, "cuEventCreate"));
  const RunDevice device{d, program, *functions, *buffers, s.stream, s.events};
  // Step counters start at zero once; stream runs tell old steps apart by epoch.
  if (auto ok = clearSteps(device); !ok) return ok.errors();
  if (auto ran = runAll(device, options, s.graph, wedged_, out); !ran) return ran.errors();
  if (auto ok = downloadResults(d, graph, program, *buffers, out); !ok) return ok.errors();
  return out;
}

}  // namespace rammer::runtime

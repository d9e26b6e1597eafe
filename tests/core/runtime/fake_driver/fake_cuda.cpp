// A stand-in for libcuda.so.1 in the runtime tests; see fake_cuda.h. Its
// state is global because the real driver's is: one per process (tests run
// on one thread).
#include "tests/core/runtime/fake_driver/fake_cuda.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using CUresult = int;

struct Kernel {
  FakeKernelFn fn = nullptr;
  bool hangs = false;
};

void noKernel(int, int, void**) {}

// A captured memset or launch; a launch's parameters copied by value.
struct Node {
  Kernel* kernel = nullptr;  // null: a memset
  int grid = 0, block = 0;
  std::array<unsigned long long, 4> words{};  // buffers, steps, epoch, timing
  int launch = 0;
  unsigned long long at = 0;  // the memset's
  unsigned value = 0;
  size_t count = 0;
};

struct FakeGraph {
  std::vector<Node> nodes;
};

struct State {
  // For whole-program checks (rammer run through this library as
  // libcuda.so.1): the SM count and a catch-all kernel that does nothing.
  State() {
    if (const char* v = std::getenv("RAMMER_FAKE_CUDA_SMS")) sms = std::atoi(v);
    if (const char* v = std::getenv("RAMMER_FAKE_CUDA_NOOP_KERNELS"); v && *v == '1') registry["*"] = Kernel{noKernel, false};
  }
  ~State() {  // what a wedged runner left behind
    for (void* m : allocations) std::free(m);
    for (void* m : abandoned) std::free(m);
    for (int* e : events) delete e;
    for (FakeGraph* g : graphs) delete g;
    for (FakeGraph* g : abandonedGraphs) delete g;
  }
  int deviceCount = 1, sms = 4, blocksPerSM = 8;
  std::map<std::string, Kernel> registry;
  std::set<void*> allocations;
  // Left by a wedged runner of an earlier test (a reset): not this test's
  // to free, so not counted live, and freed at exit.
  std::set<void*> abandoned;
  int launches = 0;
  bool hung = false;  // a hanging kernel was launched: later events never complete
  std::set<void*> pendingEvents;
  std::set<int*> events;  // kept reachable: a wedged runner never destroys its events
  // Graphs: the stream capturing (null: none) and what it recorded; graphs
  // and executable graphs alike (an executable one is a copy).
  void* capturing = nullptr;
  std::vector<Node> captured;
  std::set<FakeGraph*> graphs, abandonedGraphs;
  int captures = 0, instantiations = 0, replays = 0;
};

State& state() {
  static State s;
  return s;
}

constexpr CUresult kOk = 0, kInvalidValue = 1, kIllegalState = 401, kNoDevice = 100, kNotFound = 500, kNotReady = 600,
                   kCaptureUnsupported = 900, kCaptureUnmatched = 903;

// A capture is open: what a real driver refuses then (thread-local mode) fails.
bool capturing() { return state().capturing != nullptr; }

void runKernel(Kernel* k, int grid, int block, void** params) {
  ++state().launches;
  if (k->hangs) {
    state().hung = true;
    return;
  }
  k->fn(grid, block, params);
}

void runNode(Node& n) {
  if (!n.kernel) {
    auto* w = reinterpret_cast<unsigned*>(n.at);
    for (size_t i = 0; i < n.count; ++i) w[i] = n.value;
    return;
  }
  void* params[5] = {&n.words[0], &n.words[1], &n.words[2], &n.words[3], &n.launch};
  runKernel(n.kernel, n.grid, n.block, params);
}

int sentinel;  // addresses handed out as contexts, streams and events

}  // namespace

extern "C" {

static void hookReset(int deviceCount, int sms, int blocksPerSM) {
  State& s = state();
  s.deviceCount = deviceCount;
  s.sms = sms;
  s.blocksPerSM = blocksPerSM;
  s.registry.clear();
  s.launches = 0;
  s.abandoned.insert(s.allocations.begin(), s.allocations.end());
  s.allocations.clear();
  s.hung = false;
  s.pendingEvents.clear();
  s.capturing = nullptr;
  s.captured.clear();
  s.abandonedGraphs.insert(s.graphs.begin(), s.graphs.end());
  s.graphs.clear();
  s.captures = s.instantiations = s.replays = 0;
}
static void hookRegister(const char* name, FakeKernelFn fn, int hangs) {
  state().registry[name] = Kernel{fn, hangs != 0};
}
static int hookLive() { return static_cast<int>(state().allocations.size()); }
static int hookLaunches() { return state().launches; }
static int hookCaptures() { return state().captures; }
static int hookInstantiations() { return state().instantiations; }
static int hookReplays() { return state().replays; }
static int hookLiveGraphs() { return static_cast<int>(state().graphs.size()); }

const FakeCudaHooks* fake_cuda_hooks() {
  static const FakeCudaHooks hooks{hookReset,    hookRegister,       hookLive,    hookLaunches,
                                   hookCaptures, hookInstantiations, hookReplays, hookLiveGraphs};
  return &hooks;
}

CUresult cuInit(unsigned) { return state().deviceCount > 0 ? kOk : kNoDevice; }
CUresult cuDriverGetVersion(int* v) { *v = 13000; return kOk; }
CUresult cuDeviceGetCount(int* n) { *n = state().deviceCount; return kOk; }
CUresult cuDeviceGet(int* d, int ordinal) { *d = ordinal; return kOk; }
CUresult cuDeviceGetAttribute(int* v, int attr, int) {
  switch (attr) {
    case 16: *v = state().sms; return kOk;
    case 75: *v = 9; return kOk;
    case 76: *v = 0; return kOk;
    default: *v = 0; return kOk;
  }
}
CUresult cuDeviceGetName(char* name, int len, int) {
  std::strncpy(name, "Fake GPU", static_cast<size_t>(len));
  return kOk;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int) { *ctx = &sentinel; return kOk; }
CUresult cuDevicePrimaryCtxRelease_v2(int) { return kOk; }
CUresult cuCtxSetCurrent(void*) { return kOk; }
CUresult cuModuleLoadData(void** m, const void* image) {
  if (!image) return kInvalidValue;
  *m = &sentinel;
  return kOk;
}
CUresult cuModuleUnload(void*) { return kOk; }
CUresult cuModuleGetFunction(void** f, void*, const char* name) {
  auto it = state().registry.find(name);
  if (it == state().registry.end()) it = state().registry.find("*");  // the catch-all, when registered
  if (it == state().registry.end()) return kNotFound;
  *f = &it->second;
  return kOk;
}
CUresult cuFuncGetAttribute(int* v, int attr, void*) { *v = attr == 4 ? 32 : 0; return kOk; }
CUresult cuFuncSetAttribute(void*, int, int) { return kOk; }
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void*, int, size_t) {
  *n = state().blocksPerSM;
  return kOk;
}
CUresult cuMemAlloc_v2(unsigned long long* p, size_t bytes) {
  if (capturing()) return kCaptureUnsupported;
  void* m = std::malloc(bytes);
  if (!m) return 2;
  std::memset(m, 0xA5, bytes);  // device memory starts as garbage, not zeros
  state().allocations.insert(m);
  *p = reinterpret_cast<unsigned long long>(m);
  return kOk;
}
CUresult cuMemFree_v2(unsigned long long p) {
  if (capturing()) return kCaptureUnsupported;
  void* m = reinterpret_cast<void*>(p);
  if (!state().allocations.erase(m)) return kInvalidValue;
  std::free(m);
  return kOk;
}
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void* src, size_t n) {
  if (capturing()) return kCaptureUnsupported;
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return kOk;
}
CUresult cuMemcpyDtoH_v2(void* dst, unsigned long long src, size_t n) {
  if (capturing()) return kCaptureUnsupported;
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return kOk;
}
CUresult cuMemsetD32Async(unsigned long long p, unsigned v, size_t n, void* stream) {
  Node node;
  node.at = p;
  node.value = v;
  node.count = n;
  if (stream && stream == state().capturing)
    state().captured.push_back(node);
  else
    runNode(node);
  return kOk;
}
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned, unsigned,
                        void* stream, void** params, void**) {
  Node node;
  node.kernel = static_cast<Kernel*>(f);
  node.grid = static_cast<int>(gx);
  node.block = static_cast<int>(bx);
  for (size_t i = 0; i < node.words.size(); ++i) node.words[i] = *static_cast<unsigned long long*>(params[i]);
  node.launch = *static_cast<int*>(params[4]);
  if (stream && stream == state().capturing)
    state().captured.push_back(node);
  else
    runNode(node);  // from the copy, as a graph would: the caller's parameters are not read again
  return kOk;
}
CUresult cuStreamCreate(void** s, unsigned) { *s = &sentinel; return kOk; }
CUresult cuStreamDestroy_v2(void*) { return kOk; }
CUresult cuStreamSynchronize(void*) { return capturing() ? kCaptureUnsupported : kOk; }
#ifndef RAMMER_FAKE_CUDA_NO_GRAPHS
CUresult cuStreamBeginCapture_v2(void* stream, int) {
  if (!stream || capturing()) return kIllegalState;  // the legacy stream cannot capture; one capture at a time
  state().capturing = stream;
  state().captured.clear();
  return kOk;
}
CUresult cuStreamEndCapture(void* stream, void** graph) {
  State& s = state();
  if (!stream || stream != s.capturing) return kCaptureUnmatched;
  auto* g = new FakeGraph{std::move(s.captured)};
  s.captured.clear();
  s.capturing = nullptr;
  s.graphs.insert(g);
  ++s.captures;
  *graph = g;
  return kOk;
}
CUresult cuGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long) {
  State& s = state();
  if (!s.graphs.count(static_cast<FakeGraph*>(graph))) return kInvalidValue;
  auto* e = new FakeGraph(*static_cast<FakeGraph*>(graph));
  s.graphs.insert(e);
  ++s.instantiations;
  *exec = e;
  return kOk;
}
CUresult cuGraphLaunch(void* exec, void*) {
  State& s = state();
  if (capturing()) return kCaptureUnsupported;
  if (!s.graphs.count(static_cast<FakeGraph*>(exec))) return kInvalidValue;
  ++s.replays;
  for (Node& n : static_cast<FakeGraph*>(exec)->nodes) runNode(n);
  return kOk;
}
static CUresult destroyGraph(void* graph) {
  if (!state().graphs.erase(static_cast<FakeGraph*>(graph))) return kInvalidValue;
  delete static_cast<FakeGraph*>(graph);
  return kOk;
}
CUresult cuGraphExecDestroy(void* exec) { return destroyGraph(exec); }
CUresult cuGraphDestroy(void* graph) { return destroyGraph(graph); }
#endif
CUresult cuEventCreate(void** e, unsigned) {
  int* event = new int(0);
  state().events.insert(event);
  *e = event;
  return kOk;
}
CUresult cuEventDestroy_v2(void* e) {
  if (!state().events.erase(static_cast<int*>(e))) return kInvalidValue;
  delete static_cast<int*>(e);
  return kOk;
}
CUresult cuEventRecord(void* e, void*) {
  if (state().hung) state().pendingEvents.insert(e);
  return kOk;
}
CUresult cuEventQuery(void* e) {
  if (capturing()) return kCaptureUnsupported;
  return state().pendingEvents.count(e) ? kNotReady : kOk;
}
CUresult cuEventElapsedTime_v2(float* ms, void*, void*) { *ms = 0.25f; return kOk; }
// NVRTC asks the driver found as libcuda.so.1 for its private tables; a
// stand-in has none.
CUresult cuGetExportTable(const void** table, const void*) {
  *table = nullptr;
  return 801;  // CUDA_ERROR_NOT_SUPPORTED
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == kNotFound ? "named symbol not found" : "fake error";
  return kOk;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  *s = r == kNotFound ? "CUDA_ERROR_NOT_FOUND" : "CUDA_ERROR_FAKE";
  return kOk;
}

}  // extern "C"

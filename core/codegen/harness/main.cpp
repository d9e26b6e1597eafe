// Harness for an exported Rammer program: loads the weights and inputs
// written next to it, runs every kernel launch, checks the outputs against
// the reference executor's, then times repeated runs with GPU events.
//   usage: prog [DIR] [--runs N] [--warmup N] [--rtol X] [--atol X]
//               [--outputs DIR] [--timing FILE] [--threads N] [--launch stream|graph]
// DIR defaults to the folder holding this executable. --outputs writes
// output_K.bin (raw float32) from the first run; --timing runs once more
// with per-rTask timing (an instrumented build) and writes the words (raw
// uint64); --threads sets the host target's worker threads. --launch graph
// captures one run's memsets and launches into a CUDA (HIP) graph once and
// replays it for every run: one launch per run instead of one per program
// (the host target emulates the graph, rammer_host.h).
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(RAMMER_HOST)
// The host target: the generated program on the CPU (rammer_host.h). The
// few runtime calls below are what the CUDA runtime does for this harness.
#define RAMMER_HOST_NO_CUDA_NAMES 1
#include <sys/resource.h>
#include <chrono>
#include "rammer_host.h"
typedef int gpuError_t;
typedef std::chrono::steady_clock::time_point* gpuEvent_t;
typedef int gpuStream_t;  // launches run to their end, in order: one stream is all there is
typedef rammer_host::Graph* gpuGraph_t;
typedef rammer_host::Graph* gpuGraphExec_t;
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct gpuDeviceProp {
  char name[256];
  int multiProcessorCount;
};
enum { gpuSuccess = 0, gpuErrorLaunch = 1, gpuErrorMemory = 2, gpuMemcpyHostToDevice = 1, gpuMemcpyDeviceToHost = 2,
       gpuMaxDynamicShared = 0 };
inline const char* gpuGetErrorString(gpuError_t e) {
  return e == gpuErrorLaunch ? rammer_host::lastError() : e == gpuErrorMemory ? "out of memory" : "no error";
}
inline gpuError_t gpuMalloc(void** p, size_t bytes) {
  *p = std::calloc(bytes ? bytes : 1, 1);  // 16-byte aligned: fine for the 8-byte step counters
  return *p ? gpuSuccess : gpuErrorMemory;
}
inline gpuError_t gpuMemcpy(void* dst, const void* src, size_t bytes, int) {
  std::memcpy(dst, src, bytes);
  return gpuSuccess;
}
inline gpuError_t gpuMemset(void* p, int value, size_t bytes) {
  std::memset(p, value, bytes);
  return gpuSuccess;
}
inline gpuError_t hostStatus(int rc) { return rc == 0 ? gpuSuccess : gpuErrorLaunch; }
inline gpuError_t gpuMemsetAsync(void* p, int value, size_t bytes, gpuStream_t) {
  return hostStatus(rammer_host::memsetAsync(p, value, bytes));
}
inline gpuError_t gpuStreamCreate(gpuStream_t* s) {
  *s = 1;
  return gpuSuccess;
}
inline gpuError_t gpuStreamBeginCapture(gpuStream_t) { return hostStatus(rammer_host::beginCapture()); }
inline gpuError_t gpuStreamEndCapture(gpuStream_t, gpuGraph_t* g) { return hostStatus(rammer_host::endCapture(g)); }
inline gpuError_t gpuGraphInstantiate(gpuGraphExec_t* e, gpuGraph_t g, unsigned long long) {
  *e = rammer_host::instantiate(g);
  return gpuSuccess;
}
inline gpuError_t gpuGraphLaunch(gpuGraphExec_t e, gpuStream_t) { return hostStatus(rammer_host::replay(e)); }
inline gpuError_t gpuGraphDestroy(gpuGraph_t g) {
  rammer_host::destroyGraph(g);
  return gpuSuccess;
}
inline gpuError_t gpuGraphExecDestroy(gpuGraphExec_t e) { return gpuGraphDestroy(e); }
inline gpuError_t gpuDeviceSynchronize() { return gpuSuccess; }  // launches run to their end
inline gpuError_t gpuGetLastError() { return gpuSuccess; }
inline gpuError_t gpuEventCreate(gpuEvent_t* e) {
  *e = new std::chrono::steady_clock::time_point();
  return gpuSuccess;
}
inline gpuError_t gpuEventRecord(gpuEvent_t e, int) {
  *e = std::chrono::steady_clock::now();
  return gpuSuccess;
}
inline gpuError_t gpuEventSynchronize(gpuEvent_t) { return gpuSuccess; }
inline gpuError_t gpuEventElapsedTime(float* ms, gpuEvent_t a, gpuEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(*b - *a).count();
  return gpuSuccess;
}
inline gpuError_t gpuGetDevice(int* d) {
  *d = 0;
  return gpuSuccess;
}
inline gpuError_t gpuGetDeviceProperties(gpuDeviceProp* p, int) {
  const int workers = rammer_host::workers();
  std::snprintf(p->name, sizeof p->name, "the host CPU (%d worker thread%s)", workers, workers == 1 ? "" : "s");
  p->multiProcessorCount = workers;
  return gpuSuccess;
}
// Every vEU is a fiber: any grid is co-resident.
inline gpuError_t gpuOccupancy(int* perSM, const void*, int, size_t) {
  *perSM = INT_MAX / 4096;
  return gpuSuccess;
}
inline gpuError_t gpuFuncSetAttribute(const void*, int, int) { return gpuSuccess; }
#elif defined(RAMMER_HIP)
#include <hip/hip_runtime.h>
typedef hipError_t gpuError_t;
typedef hipEvent_t gpuEvent_t;
typedef hipStream_t gpuStream_t;
typedef hipGraph_t gpuGraph_t;
typedef hipGraphExec_t gpuGraphExec_t;
#define gpuSuccess hipSuccess
#define gpuMemsetAsync hipMemsetAsync
#define gpuStreamCreate(s) hipStreamCreateWithFlags(s, hipStreamNonBlocking)
#define gpuStreamBeginCapture(s) hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal)
#define gpuStreamEndCapture hipStreamEndCapture
#define gpuGraphInstantiate hipGraphInstantiateWithFlags
#define gpuGraphLaunch hipGraphLaunch
#define gpuGraphDestroy hipGraphDestroy
#define gpuGraphExecDestroy hipGraphExecDestroy
#define gpuGetErrorString hipGetErrorString
#define gpuMalloc hipMalloc
#define gpuMemcpy hipMemcpy
#define gpuMemset hipMemset
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuGetLastError hipGetLastError
#define gpuLaunchKernel hipLaunchKernel
#define gpuEventCreate hipEventCreate
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuGetDevice hipGetDevice
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceProp hipDeviceProp_t
#define gpuOccupancy hipOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuFuncSetAttribute hipFuncSetAttribute
#define gpuMaxDynamicShared hipFuncAttributeMaxDynamicSharedMemorySize
#else
#include <cuda_runtime.h>
typedef cudaError_t gpuError_t;
typedef cudaEvent_t gpuEvent_t;
typedef cudaStream_t gpuStream_t;
typedef cudaGraph_t gpuGraph_t;
typedef cudaGraphExec_t gpuGraphExec_t;
#define gpuSuccess cudaSuccess
#define gpuMemsetAsync cudaMemsetAsync
// The legacy default stream cannot be captured: graph runs get a stream of their own.
#define gpuStreamCreate(s) cudaStreamCreateWithFlags(s, cudaStreamNonBlocking)
#define gpuStreamBeginCapture(s) cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal)
#define gpuStreamEndCapture cudaStreamEndCapture
#define gpuGraphInstantiate cudaGraphInstantiate  // CUDA 12's (exec, graph, flags)
#define gpuGraphLaunch cudaGraphLaunch
#define gpuGraphDestroy cudaGraphDestroy
#define gpuGraphExecDestroy cudaGraphExecDestroy
#define gpuGetErrorString cudaGetErrorString
#define gpuMalloc cudaMalloc
#define gpuMemcpy cudaMemcpy
#define gpuMemset cudaMemset
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuGetLastError cudaGetLastError
#define gpuLaunchKernel cudaLaunchKernel
#define gpuEventCreate cudaEventCreate
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuGetDevice cudaGetDevice
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceProp cudaDeviceProp
#define gpuOccupancy cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuMaxDynamicShared cudaFuncAttributeMaxDynamicSharedMemorySize
#endif

// Defined in the kernels file: one entry per __global__; launch records
// index it (several launches may share a kernel).
extern "C" const void* const rammer_kernel_table[];
extern "C" const int rammer_kernel_count;

namespace {

void check(gpuError_t e, const char* what) {
  if (e != gpuSuccess) {
    std::fprintf(stderr, "error: %s: %s\n", what, gpuGetErrorString(e));
    std::exit(3);
  }
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(3);
}

struct Buffer {
  long long numel = 0;
  int storage = -1;
  long long offset = 0;  // elements into the storage (buffer_offset lines)
  std::string file;  // initial contents, "-" for none
  std::string name;
  float* device = nullptr;
};

struct Launch {
  int kernel = 0, grid = 0, block = 0, persistent = 0, veusPerSM = 0, program = 0;
  long long shared = 0;
  std::vector<int> zero;
  std::vector<std::pair<long long, long long>> clears;  // {offset, words} in the arena
};

struct Output {
  int buffer = 0;
  std::string file, name;
  bool ints = false;  // int32 words (an integer or bool output): compared exactly
};

struct Manifest {
  std::string model, policy, device;
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  std::vector<Output> outputs;
  long long steps = 0, timedEvents = 0;
  // The buffers launches clear, side by side: offsets in floats, -1 elsewhere.
  long long arenaWords = 0;
  std::vector<long long> arenaOffset;
};

std::string join(const std::string& dir, const std::string& file) { return dir.empty() ? file : dir + "/" + file; }

Manifest readManifest(const std::string& dir) {
  std::ifstream in(join(dir, "manifest.txt"));
  if (!in) fail("cannot open " + join(dir, "manifest.txt") + " (pass the export folder as the first argument)");
  Manifest m;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string key;
    s >> key;
    if (key == "model") s >> m.model;
    else if (key == "policy") s >> m.policy;
    else if (key == "device") s >> m.device;
    else if (key == "steps") s >> m.steps;
    else if (key == "timed_events") s >> m.timedEvents;
    else if (key == "buffer") {
      Buffer b;
      int index = 0;
      std::string kind;
      s >> index >> kind >> b.numel >> b.storage >> b.file;
      std::getline(s >> std::ws, b.name);
      if (index != (int)m.buffers.size()) fail("manifest: buffers out of order at " + line);
      m.buffers.push_back(b);
    } else if (key == "buffer_offset") {  // a view's place in its storage, in elements
      int index = 0;
      s >> index;
      if (index < 0 || index >= (int)m.buffers.size()) fail("manifest: an offset for no buffer at " + line);
      s >> m.buffers[(size_t)index].offset;
    } else if (key == "launch") {
      Launch l;
      int n = 0;
      s >> l.program >> l.kernel >> l.grid >> l.block >> l.shared >> l.persistent >> l.veusPerSM >> n;
      for (int i = 0; i < n; ++i) {
        int z = 0;
        s >> z;
        l.zero.push_back(z);
      }
      m.launches.push_back(l);
    } else if (key == "arena") {
      s >> m.arenaWords;
    } else if (key == "in_arena") {
      long long index = 0, offset = 0;
      s >> index >> offset;
      if (index < 0 || index >= (long long)m.buffers.size()) fail("manifest: no buffer for " + line);
      m.arenaOffset.resize(m.buffers.size(), -1);
      m.arenaOffset[(size_t)index] = offset;
    } else if (key == "clear") {
      long long launch = 0, offset = 0, words = 0;
      s >> launch >> offset >> words;
      if (launch < 0 || launch >= (long long)m.launches.size()) fail("manifest: no launch for " + line);
      m.launches[(size_t)launch].clears.push_back({offset, words});
    } else if (key == "output") {
      Output o;
      s >> o.buffer >> o.file;
      std::getline(s >> std::ws, o.name);
      m.outputs.push_back(o);
    } else if (key == "int_output") {
      long long k = 0;
      s >> k;
      if (k < 0 || k >= (long long)m.outputs.size()) fail("manifest: no output for " + line);
      m.outputs[(size_t)k].ints = true;
    }
    if (s.fail()) fail("manifest: cannot read line: " + line);
  }
  return m;
}

std::vector<float> readFloats(const std::string& path, long long numel) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail("cannot open " + path);
  const long long bytes = (long long)in.tellg();
  if (bytes != numel * 4)
    fail(path + " has " + std::to_string(bytes) + " bytes, expected " + std::to_string(numel * 4));
  std::vector<float> v((size_t)numel);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(v.data()), bytes);
  return v;
}

// The folder this executable lives in (argv[0]'s directory).
std::string ownDir(const char* argv0) {
  std::string p = argv0 ? argv0 : "";
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
}

struct Program {
  Manifest m;
  std::vector<float*> pointers;  // per buffer, views share their storage's
  float* const* devicePointers = nullptr;
  unsigned long long* steps = nullptr;
  float* arena = nullptr;  // the buffers launches clear (manifest "arena"), or none
  gpuStream_t stream = 0;  // the legacy default stream, or (graph runs) one of their own
  gpuGraphExec_t graph = nullptr;  // --launch graph: one captured run
};

size_t stepBytes(const Program& p) { return (size_t)(p.m.steps + 1) * 8; }

gpuError_t launchKernel(const Launch& l, void** args, gpuStream_t stream) {
#if defined(RAMMER_HOST)
  rammer_host::LaunchConfig c;
  c.kernel = (rammer_host::KernelFn)rammer_kernel_table[l.kernel];
  c.grid = (unsigned)l.grid;
  c.block = (unsigned)l.block;
  c.sharedBytes = (size_t)l.shared;
  c.persistent = l.persistent != 0;
  c.program = l.program;
  (void)stream;
  return rammer_host::launch(c, args) == 0 ? gpuSuccess : gpuErrorLaunch;
#else
  return gpuLaunchKernel(rammer_kernel_table[l.kernel], dim3((unsigned)l.grid), dim3((unsigned)l.block), args,
                         (size_t)l.shared, stream);
#endif
}

// `timing`: nullptr, or the per-rTask timing words of an instrumented build.
void run(Program& p, unsigned long long epoch, unsigned long long* timing = nullptr) {
  for (size_t k = 0; k < p.m.launches.size(); ++k) {
    const Launch& l = p.m.launches[k];
    int launch = (int)k;
    if (p.arena)
      for (const auto& c : l.clears) {
        if (c.first < 0 || c.second < 0 || c.first + c.second > p.m.arenaWords) fail("manifest: a clear range past the arena");
        check(gpuMemsetAsync(p.arena + c.first, 0, (size_t)c.second * 4, p.stream), "zeroing the split-K outputs");
      }
    else
      for (int z : l.zero)
        check(gpuMemsetAsync(p.pointers[(size_t)z], 0, (size_t)p.m.buffers[(size_t)z].numel * 4, p.stream),
              "zeroing a split-K output");
    void* args[] = {(void*)&p.devicePointers, (void*)&p.steps, (void*)&epoch, (void*)&timing, (void*)&launch};
    const std::string what = "running program " + std::to_string(l.program);
    check(launchKernel(l, args, p.stream), what.c_str());
  }
}

// --launch graph: one run captured (recorded, not run) and instantiated.
// A graph keeps kernel parameters by value, so every replay runs with this
// epoch: the captured run begins by zeroing the step counters, or a
// barrier would take the last replay's steps for this one's.
void captureRun(Program& p, unsigned long long epoch) {
  check(gpuStreamCreate(&p.stream), "creating a stream");
  gpuGraph_t graph;
  check(gpuStreamBeginCapture(p.stream), "starting the graph capture");
  check(gpuMemsetAsync(p.steps, 0, stepBytes(p), p.stream), "zeroing the step counters");
  run(p, epoch);
  check(gpuStreamEndCapture(p.stream, &graph), "capturing the launches");
  check(gpuGraphInstantiate(&p.graph, graph, 0), "instantiating the graph");
  check(gpuGraphDestroy(graph), "destroying the captured graph");
}

// One run: a replay of the captured one, or every launch with a new epoch.
void runOnce(Program& p, unsigned long long& epoch) {
  if (p.graph)
    check(gpuGraphLaunch(p.graph, p.stream), "running the graph");
  else
    run(p, epoch++);
}

void writeRaw(const std::string& path, const void* data, size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), (std::streamsize)bytes);
  if (!out) fail("cannot write " + path);
}

// output_K.bin per graph output, raw float32.
void writeOutputs(const Program& p, const std::string& dir) {
  for (size_t k = 0; k < p.m.outputs.size(); ++k) {
    const Buffer& b = p.m.buffers[(size_t)p.m.outputs[k].buffer];
    std::vector<float> got((size_t)b.numel);
    check(gpuMemcpy(got.data(), p.pointers[(size_t)p.m.outputs[k].buffer], (size_t)b.numel * 4, gpuMemcpyDeviceToHost),
          "reading an output");
    writeRaw(join(dir, "output_" + std::to_string(k) + ".bin"), got.data(), got.size() * 4);
  }
}

// |got - want| <= atol + rtol * |want| for every element.
bool compare(const Program& p, const std::string& dir, const char* when, double rtol, double atol) {
  bool ok = true;
  for (const Output& o : p.m.outputs) {
    if (o.file == "-") continue;  // no expected values (rammer run compares them itself)
    const Buffer& b = p.m.buffers[(size_t)o.buffer];
    std::vector<float> want = readFloats(join(dir, o.file), b.numel);
    std::vector<float> got((size_t)b.numel);
    check(gpuMemcpy(got.data(), p.pointers[(size_t)o.buffer], (size_t)b.numel * 4, gpuMemcpyDeviceToHost), "reading an output");
    double maxAbs = 0, maxRel = 0;
    long long bad = 0, first = -1, nans = 0;
    if (o.ints) {  // the words' int32 values
      for (size_t i = 0; i < got.size(); ++i) {
        int g = 0, w = 0;
        std::memcpy(&g, &got[i], 4);
        std::memcpy(&w, &want[i], 4);
        got[i] = (float)g;
        want[i] = (float)w;
        if (g != w && first < 0) first = (long long)i;
        bad += g != w;
        maxAbs = std::fmax(maxAbs, std::fabs((double)g - (double)w));
      }
    }
    for (size_t i = 0; i < got.size() && !o.ints; ++i) {
      const double d = std::fabs((double)got[i] - (double)want[i]);
      if (!(d <= atol + rtol * std::fabs((double)want[i]))) {  // NaN fails too
        if (first < 0) first = (long long)i;
        ++bad;
      }
      if (std::isnan(d)) {
        ++nans;
        continue;
      }
      maxAbs = std::fmax(maxAbs, d);
      if (d > atol) maxRel = std::fmax(maxRel, d / std::fabs((double)want[i]));
    }
    std::printf("%s: output %s (%lld values): max abs error %.3g, max rel error (where abs > atol) %.3g%s: %s\n", when,
                o.name.c_str(), b.numel, maxAbs, maxRel, nans ? (", " + std::to_string(nans) + " NaN").c_str() : "",
                bad ? "FAIL" : "PASS");
    if (bad) {
      std::printf("  %lld values off, first at %lld: got %.9g, expected %.9g\n", bad, first, got[(size_t)first],
                  want[(size_t)first]);
      ok = false;
    }
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = ownDir(argc > 0 ? argv[0] : nullptr);
#if defined(RAMMER_HOST)
  int runs = 3, warmup = 1;  // the CPU is slow; a few runs show the spread
#else
  int runs = 20, warmup = 3;
#endif
  double rtol = 1e-4, atol = 1e-4;
  std::string outputsDir, timingFile, launchMode = "stream";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc) warmup = std::atoi(argv[++i]);
    else if (a == "--rtol" && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (a == "--atol" && i + 1 < argc) atol = std::atof(argv[++i]);
    else if (a == "--outputs" && i + 1 < argc) outputsDir = argv[++i];
    else if (a == "--timing" && i + 1 < argc) timingFile = argv[++i];
    else if (a == "--launch" && i + 1 < argc) launchMode = argv[++i];
#if defined(RAMMER_HOST)
    else if (a == "--threads" && i + 1 < argc) rammer_host::setWorkers(std::atoi(argv[++i]));
#endif
    else if (!a.empty() && a[0] != '-') dir = a;
    else fail("usage: prog [DIR] [--runs N] [--warmup N] [--rtol X] [--atol X] [--outputs DIR] [--timing FILE] "
              "[--threads N] [--launch stream|graph]");
  }
  if (launchMode != "stream" && launchMode != "graph") fail("--launch takes stream or graph, not " + launchMode);

  Program p;
  p.m = readManifest(dir);
  int dev = 0;
  check(gpuGetDevice(&dev), "finding a GPU");
  gpuDeviceProp prop;
  check(gpuGetDeviceProperties(&prop, dev), "reading the GPU's properties");
  std::printf("model %s, policy %s, planned for %s; running on %s (%d SMs)\n", p.m.model.c_str(), p.m.policy.c_str(),
              p.m.device.c_str(), prop.name, prop.multiProcessorCount);

  // Memory: one allocation per storage, except those launches clear, which
  // share the arena; views point into their storage.
  p.pointers.assign(p.m.buffers.size(), nullptr);
  p.m.arenaOffset.resize(p.m.buffers.size(), -1);
  if (p.m.arenaWords > 0) check(gpuMalloc((void**)&p.arena, (size_t)p.m.arenaWords * 4), "allocating the split-K outputs");
  for (size_t i = 0; i < p.m.buffers.size(); ++i) {
    const Buffer& b = p.m.buffers[i];
    if (b.storage != (int)i) continue;
    if (p.arena && p.m.arenaOffset[i] >= 0) {
      if (p.m.arenaOffset[i] + b.numel > p.m.arenaWords) fail("manifest: buffer " + b.name + " ends past the arena");
      p.pointers[i] = p.arena + p.m.arenaOffset[i];
    }
    else
      check(gpuMalloc((void**)&p.pointers[i], (size_t)(b.numel > 0 ? b.numel : 1) * 4), "allocating a buffer");
    if (b.file != "-") {
      const std::vector<float> data = readFloats(join(dir, b.file), b.numel);
      check(gpuMemcpy(p.pointers[i], data.data(), (size_t)b.numel * 4, gpuMemcpyHostToDevice), "uploading a buffer");
    }
  }
  for (size_t i = 0; i < p.m.buffers.size(); ++i) {
    const Buffer& b = p.m.buffers[i];
    if (b.offset < 0 || b.offset + b.numel > p.m.buffers[(size_t)b.storage].numel) fail("manifest: buffer " + b.name + " ends past its storage");
    p.pointers[i] = p.pointers[(size_t)b.storage] + b.offset;
  }
  float** table = nullptr;
  check(gpuMalloc((void**)&table, (p.pointers.size() + 1) * sizeof(float*)), "allocating the buffer table");
  check(gpuMemcpy(table, p.pointers.data(), p.pointers.size() * sizeof(float*), gpuMemcpyHostToDevice), "uploading the buffer table");
  p.devicePointers = table;
  // Step counters start at zero once; every stream run uses a new epoch.
  check(gpuMalloc((void**)&p.steps, stepBytes(p)), "allocating the step counters");
  check(gpuMemset(p.steps, 0, stepBytes(p)), "zeroing the step counters");
  // A graph's stream does not wait for the legacy stream's copies and memsets.
  check(gpuDeviceSynchronize(), "uploading the buffers");

  // Persistent kernels wait on each other's vEUs: every block must be
  // resident at once, or a barrier could wait forever. Refuse otherwise.
  for (const Launch& l : p.m.launches) {
    if (l.kernel < 0 || l.kernel >= rammer_kernel_count) fail("manifest names a kernel that the kernels file lacks");
    const void* f = rammer_kernel_table[l.kernel];
    if (l.shared > 48 * 1024) check(gpuFuncSetAttribute(f, gpuMaxDynamicShared, (int)l.shared), "raising the shared memory limit");
    if (!l.persistent) continue;
    int perSM = 0;
    check(gpuOccupancy(&perSM, f, l.block, (size_t)l.shared), "computing occupancy");
    if ((long long)perSM * prop.multiProcessorCount < l.grid) {
      std::fprintf(stderr,
                   "refused: program %d needs %d co-resident vEUs (%d threads, %lld B shared each; planned %d per SM), "
                   "but this GPU holds only %d per SM x %d SMs = %d; re-plan with --device matching this GPU\n",
                   l.program, l.grid, l.block, l.shared, l.veusPerSM, perSM, prop.multiProcessorCount,
                   perSM * prop.multiProcessorCount);
      return 2;
    }
  }

  unsigned long long epoch = 1;
  if (launchMode == "graph") captureRun(p, epoch++);  // the replays' epoch; a later stream run takes the next
  runOnce(p, epoch);
  check(gpuGetLastError(), "launching");
  check(gpuDeviceSynchronize(), "running the program");
  bool ok = compare(p, dir, "run 1", rtol, atol);
  if (!outputsDir.empty()) writeOutputs(p, outputsDir);

  // Timing: a few warm-up runs, then `runs` runs between two events.
  for (int i = 0; i < warmup; ++i) runOnce(p, epoch);
  gpuEvent_t start, stop;
  check(gpuEventCreate(&start), "creating an event");
  check(gpuEventCreate(&stop), "creating an event");
  check(gpuEventRecord(start, p.stream), "recording an event");
  for (int i = 0; i < runs; ++i) runOnce(p, epoch);
  check(gpuEventRecord(stop, p.stream), "recording an event");
  check(gpuEventSynchronize(stop), "running the program");
  float ms = 0;
  check(gpuEventElapsedTime(&ms, start, stop), "reading the timer");
  std::printf("time: %.4f ms per run (mean of %d runs, %zu kernel launches each, %s launch)\n",
              runs > 0 ? ms / runs : 0.0, runs, p.m.launches.size(), p.graph ? "graph" : "stream");
  // Later runs must compute the same (stale step counters would break them).
  if (runs + warmup > 0) ok = compare(p, dir, "last run", rtol, atol) && ok;
  if (!timingFile.empty()) {
    // One more run that records start, end and SM of every rTask.
    const size_t words = (size_t)(p.m.timedEvents > 0 ? p.m.timedEvents : 0) * 3;
    if (words == 0) fail("--timing needs an instrumented build (timed_events is 0 in the manifest)");
    unsigned long long* timing = nullptr;
    check(gpuMalloc((void**)&timing, words * 8), "allocating the timing buffer");
    check(gpuMemsetAsync(timing, 0, words * 8, p.stream), "zeroing the timing buffer");
    run(p, epoch++, timing);  // on the stream: a graph's launches pass no timing buffer
    check(gpuDeviceSynchronize(), "running the program");
    std::vector<unsigned long long> host(words);
    check(gpuMemcpy(host.data(), timing, words * 8, gpuMemcpyDeviceToHost), "reading the timing buffer");
    writeRaw(timingFile, host.data(), words * 8);
    std::printf("timing: %zu words written to %s\n", words, timingFile.c_str());
  }
  if (p.graph) check(gpuGraphExecDestroy(p.graph), "destroying the graph");
#if defined(RAMMER_HOST)
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("memory: peak RSS %ld KiB\n", usage.ru_maxrss);
#endif
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

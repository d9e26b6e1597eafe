#pragma once
// Helpers shared by the rKernel families: reading a node's static shapes,
// cutting a flat range into rTasks, the index type and the libraries an
// rKernel's CUDA text needs (instantiation.h writes the text).
#include <cstdint>
#include <string>
#include <vector>

#include <functional>
#include <map>

#include "core/ir/graph.h"
#include "core/kernels/instantiation.h"
#include "core/kernels/rkernel.h"
#include "core/ops/op_context.h"

namespace rammer::kernels {

// What every family needs to know about the node it compiles.
struct NodeInfo {
  const ir::Graph* graph = nullptr;
  ir::NodeId id = ir::kNone;
  const ir::Node* node = nullptr;
  std::vector<ir::Shape> inShapes;   // empty shape for an omitted slot
  std::vector<bool> inPresent;
  std::vector<ir::Shape> outShapes;  // empty shape for an omitted slot
  std::vector<bool> outPresent;
  std::vector<ir::DType> inTypes, outTypes;  // Undefined for an omitted slot

  size_t numInputs() const { return inShapes.size(); }
  size_t numOutputs() const { return outShapes.size(); }
  // A constant input's value, nullptr when the slot is not a constant.
  const ir::Tensor* constant(size_t slot) const;
  // The op's context (types and constant values from the graph), for the
  // ops' own attribute readers and geometry helpers.
  ops::OpContext context() const;
  // "rk_n<id>_<kernel>": unique within a generated program.
  std::string functionName(const std::string& kernel) const;
};

// Reads shapes; throws ops::OpError unless every present input and output
// has a fully known type and is float32 or a constant (baked into the
// kernel). With `words`, for families that handle them, tensors of the
// types run-time words hold (ir/words.h: int, bool) are accepted too.
NodeInfo readNode(const ir::Graph& graph, ir::NodeId id, bool words = false);

// "int" when every index fits in 32 bits (cheaper division on the GPU).
std::string indexType(int64_t maxIndex);

// "1.5f", "(-INFINITY)", ...: a float literal that round-trips exactly.
std::string cudaFloatLiteral(float v);

// Ceil division for positive counts.
inline int64_t divUp(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Per-element rTasks: task t covers [t*chunk, min((t+1)*chunk, total)).
struct ElementRange {
  int64_t begin = 0, end = 0;
};
inline ElementRange taskRange(int64_t task, int64_t chunk, int64_t total) {
  const int64_t b = task * chunk;
  return {b, b + chunk < total ? b + chunk : total};
}

// Row-major strides of a shape.
std::vector<int64_t> rowMajorStrides(const ir::Shape& s);

// A kernel whose rTasks are chunks of a flat range of `total` elements, each
// element independent: elementwise, copies, per-output pooling/reductions.
struct ElementKernelSpec {
  std::string family;  // candidate names are "<family>_1k", "<family>_4k"
  int64_t total = 0;
  double flops = 0, bytes = 0;
  int regsEstimate = 32;
  // File-scope text before the function (tables), given the function's
  // name to derive unique table names from; may be empty.
  std::function<std::string(const std::string& fn)> prelude;
  // The core/kernels/cuda/ file, the element template and its arguments
  // after <I, THREADS, CHUNK, TOTAL> (it runs element_loop.cuh's loop, or
  // its own copy of it; by default it takes rtask_id, tid, smem and every
  // input and output).
  std::string library, templateName;
  std::vector<std::string> templateArgs;
  // TemplateCall::locals and TemplateCall::args given the function's name
  // (unset: none; all of them).
  std::function<std::string(const std::string& fn)> locals;
  std::function<std::vector<std::string>(const std::string& fn)> args;
  // The largest element index the template computes, where it may pass
  // the range's size (the index type covers both).
  int64_t maxIndex = 0;
  // The output elements that elements [begin, end) of the range write
  // (RKernel::written; the emulator copies them from the reference
  // operator's result). Unset: element e of every output, for the
  // families whose range is the output's elements; a range that counts
  // something else (scan lines, copy segments) says what it writes.
  std::function<void(int64_t begin, int64_t end, std::vector<WrittenRun>& runs)> written;
  std::vector<bool> constantsAsWords;  // RKernel::constantsAsWords
};

// One candidate per chunk size (1024 and 4096 elements per rTask, 256
// threads); a single candidate when the range is small.
std::vector<RKernel> elementKernels(const NodeInfo& info, const ElementKernelSpec& spec);

// The barriers of one rammer_segment_reduce over `segment` threads.
int segmentReduceSyncs(int segment);
// Adds a core/kernels/cuda/ file to the kernel's libraries (once, in order:
// a file's dependencies are added first).
void useCudaLibrary(RKernel& kernel, const std::string& file);

// Rows per rTask of the warp-per-row variants: 8 warps of 32 lanes.
inline constexpr int kWarpRows = 8;
inline constexpr int kWarpLanes = 32;

// An rKernel's identity, launch shape and cost, its CUDA text and CPU tile
// left to the caller (the variants of one family differ in those).
RKernel kernelShell(const NodeInfo& info, const std::string& name, const std::string& family,
                    std::map<std::string, int64_t> params, int64_t rtasks, int threads, int64_t sharedBytes,
                    double flops, double bytes);

// Smallest power of two >= n, clamped to [lo, hi].
int powerOfTwoThreads(int64_t n, int lo, int hi);

}  // namespace rammer::kernels

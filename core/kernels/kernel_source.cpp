#include "core/kernels/kernel_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "core/ir/words.h"
#include "core/kernels/cuda_library.h"
#include "core/ops/type_inference.h"

namespace rammer::kernels {

const ir::Tensor* NodeInfo::constant(size_t slot) const {
  const ir::ValueId v = node->input(slot);
  if (v == ir::kNone) return nullptr;
  const ir::Value& val = graph->value(v);
  return val.constant ? &*val.constant : nullptr;
}

ops::OpContext NodeInfo::context() const { return ops::makeContext(*graph, *node, {}); }

std::string NodeInfo::functionName(const std::string& kernel) const {
  return "rk_n" + std::to_string(id) + "_" + kernel;
}

NodeInfo readNode(const ir::Graph& graph, ir::NodeId id, bool words) {
  NodeInfo info;
  info.graph = &graph;
  info.id = id;
  info.node = &graph.node(id);
  const ir::Node& n = *info.node;
  auto shapeOf = [&](ir::ValueId v, const char* what, size_t slot) {
    const ir::Value& val = graph.value(v);
    if (!val.type.fullyKnown())
      throw ops::OpError(std::string(what) + " " + std::to_string(slot) + " ('" + val.name + "') has shape " +
                         (val.type.rankKnown ? ir::shapeToString(val.type.shape) : std::string("of unknown rank")) +
                         "; rKernels need every dim known (bind the batch size)");
    const bool held = val.type.dtype == ir::DType::Float32 || (words && ir::heldAsWords(val.type.dtype));
    if (!held && !val.constant)
      throw ops::OpError(std::string(what) + " " + std::to_string(slot) + " ('" + val.name + "') is " +
                         std::string(ir::dtypeName(val.type.dtype)) +
                         (words ? "; rKernels hold float32, bool and integer types up to int64 (as int32) at run time"
                                : "; this rKernel computes float32 and takes other types only as constants"));
    return val.type.shape;
  };
  auto typeOf = [&](ir::ValueId v) { return v == ir::kNone ? ir::DType::Undefined : graph.value(v).type.dtype; };
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const bool present = n.inputs[i] != ir::kNone;
    info.inPresent.push_back(present);
    info.inShapes.push_back(present ? shapeOf(n.inputs[i], "input", i) : ir::Shape{});
    info.inTypes.push_back(typeOf(n.inputs[i]));
  }
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const bool present = n.outputs[i] != ir::kNone;
    info.outPresent.push_back(present);
    info.outShapes.push_back(present ? shapeOf(n.outputs[i], "output", i) : ir::Shape{});
    info.outTypes.push_back(typeOf(n.outputs[i]));
  }
  return info;
}

std::string indexType(int64_t maxIndex) {
  return maxIndex < std::numeric_limits<int32_t>::max() ? "int" : "long long";
}

std::string cudaFloatLiteral(float v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  s += "f";
  return s[0] == '-' ? "(" + s + ")" : s;
}

std::vector<int64_t> rowMajorStrides(const ir::Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

int segmentReduceSyncs(int segment) {
  int steps = 0;
  for (int k = segment / 2; k > 0; k >>= 1) ++steps;
  return 2 + steps;
}

void useCudaLibrary(RKernel& kernel, const std::string& file) {
  // What each file builds on (written before it).
  static const std::map<std::string, std::vector<const char*>> kBuildsOn = {
      {kSoftmax, {kBlockReduce}},
      {kLayerNorm, {kBlockReduce}},
      {kGlobalPool, {kBlockReduce}},
      {kAttention, {kIndexMath}},
      {kWindowPool, {kElementLoop, kIndexMath}},
      {kReduce, {kBlockReduce, kElementLoop, kIndexMath}},
      {kGather, {kElementLoop, kIndexMath}},
      {kArgReduce, {kElementLoop, kIndexMath}},
      {kTrilu, {kElementLoop, kIndexMath}},
      {kScan, {kElementLoop, kIndexMath}},
      {kScatter, {kElementLoop, kIndexMath}},
      {kElementwise, {kElementLoop, kIndexMath}},
      {kCell, {kElementLoop}},
      {kGemvCell, {kGemv, kElementLoop, kCell}},
      {kFusedGroup, {kIndexMath, kWindowPool}},
      {kGemmStore, {kIndexMath, kSplitK}},
      {kCopy, {kIndexMath}},
      {kGemmRTask, {kGemmMainloop, kGemmStore}},
      {kGemvRTask, {kGemv, kGemmStore}},
      {kConvDepthwise, {kConvGeometry, kGemmStore}},
  };
  if (auto it = kBuildsOn.find(file); it != kBuildsOn.end())
    for (const char* base : it->second) useCudaLibrary(kernel, base);
  auto& libs = kernel.cudaLibraries;
  if (std::find(libs.begin(), libs.end(), file) == libs.end()) libs.push_back(file);
}

RKernel kernelShell(const NodeInfo& info, const std::string& name, const std::string& family,
                    std::map<std::string, int64_t> params, int64_t rtasks, int threads, int64_t sharedBytes,
                    double flops, double bytes) {
  RKernel k;
  k.name = name;
  k.family = family;
  k.params = std::move(params);
  k.numRTasks = rtasks;
  k.block = Dim3{threads, 1, 1};
  k.sharedBytes = sharedBytes;
  k.flops = flops;
  k.bytes = bytes;
  k.cudaFunction = info.functionName(name);
  return k;
}

int powerOfTwoThreads(int64_t n, int lo, int hi) {
  int t = lo;
  while (t < hi && t < n) t *= 2;
  return t;
}

std::vector<RKernel> elementKernels(const NodeInfo& info, const ElementKernelSpec& spec) {
  struct Variant {
    const char* suffix;
    int64_t chunk;
    int threads;
  };
  constexpr Variant kVariants[] = {{"1k", 1024, 256}, {"4k", 4096, 256}};
  std::vector<RKernel> out;
  for (const Variant& v : kVariants) {
    // A second candidate that makes a single rTask either way is no choice.
    if (!out.empty() && divUp(spec.total, v.chunk) == out.back().numRTasks) break;
    RKernel k;
    k.name = spec.family + "_" + v.suffix;
    k.family = spec.family;
    k.params = {{"chunk", v.chunk}, {"elements", spec.total}};
    k.numRTasks = std::max<int64_t>(1, divUp(spec.total, v.chunk));
    k.block = Dim3{v.threads, 1, 1};
    k.regsEstimate = spec.regsEstimate;
    k.flops = spec.flops;
    k.bytes = spec.bytes;
    k.constantsAsWords = spec.constantsAsWords;
    k.cudaFunction = info.functionName(k.name);
    const std::string idx = indexType(std::max(spec.total + v.chunk, spec.maxIndex));
    k.cudaSource = spec.prelude ? spec.prelude(k.cudaFunction) : std::string();
    useCudaLibrary(k, spec.library);
    TemplateCall call{spec.templateName, {idx, std::to_string(v.threads), llArg(v.chunk), llArg(spec.total)}, {}, {}};
    call.templateArgs.insert(call.templateArgs.end(), spec.templateArgs.begin(), spec.templateArgs.end());
    if (spec.args) call.args = spec.args(k.cudaFunction);
    if (spec.locals) call.locals = spec.locals(k.cudaFunction);
    k.cudaSource += cudaInstantiation(k.cudaFunction, info.numInputs(), info.numOutputs(), call);
    const int64_t chunk = v.chunk, total = spec.total;
    const auto outputs = static_cast<int32_t>(info.numOutputs());
    k.written = [written = spec.written, chunk, total, outputs](int64_t task, std::vector<WrittenRun>& runs) {
      const ElementRange r = taskRange(task, chunk, total);
      if (r.begin >= r.end) return;
      if (written) return written(r.begin, r.end, runs);
      for (int32_t o = 0; o < outputs; ++o) runs.push_back(WrittenRun{o, r.begin, r.end - r.begin, 1});
    };
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

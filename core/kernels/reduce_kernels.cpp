#include "core/kernels/reduce_kernels.h"

#include <algorithm>

#include "core/kernels/cuda_library.h"

namespace rammer::kernels {

namespace {

enum class Merge { Add, Mul, Max, Min };
enum class Term { Same, Abs, Square };
enum class Finish { None, Mean, Sqrt, Log };

struct ReduceKind {
  const char* type;
  Term term;
  Merge merge;
  Finish finish;
};

constexpr ReduceKind kKinds[] = {
    {"ReduceSum", Term::Same, Merge::Add, Finish::None},     {"ReduceMean", Term::Same, Merge::Add, Finish::Mean},
    {"ReduceMax", Term::Same, Merge::Max, Finish::None},     {"ReduceMin", Term::Same, Merge::Min, Finish::None},
    {"ReduceProd", Term::Same, Merge::Mul, Finish::None},    {"ReduceL1", Term::Abs, Merge::Add, Finish::None},
    {"ReduceL2", Term::Square, Merge::Add, Finish::Sqrt},    {"ReduceSumSquare", Term::Square, Merge::Add, Finish::None},
    {"ReduceLogSum", Term::Same, Merge::Add, Finish::Log},
};

// The template arguments of reduce.cuh's RammerReduce for a kind.
std::string foldType(const ReduceKind& k, int64_t count) {
  const char* op = k.merge == Merge::Mul ? "RammerProdOp"
                   : k.merge == Merge::Max ? "RammerNanMaxOp"
                   : k.merge == Merge::Min ? "RammerNanMinOp"
                                           : "RammerSumOp";
  const char* term = k.term == Term::Abs ? "kRammerTermAbs" : k.term == Term::Square ? "kRammerTermSquare" : "kRammerTermSame";
  const char* finish = k.finish == Finish::Mean   ? "kRammerFinishMean"
                       : k.finish == Finish::Sqrt ? "kRammerFinishSqrt"
                       : k.finish == Finish::Log  ? "kRammerFinishLog"
                                                  : "kRammerFinishNone";
  return std::string("RammerReduce<") + op + ", " + term + ", " + finish + ", " + llArg(count) + ">";
}

// The reduction as two boxes over the input: kept dims (in output order)
// and reduced dims, each with the input strides of its dims.
struct Plan {
  ReduceKind kind;
  std::vector<int64_t> keptExt, keptStride, redExt, redStride;
  int64_t outputs = 1, count = 1;

  int64_t outBase(int64_t o) const {
    int64_t off = 0;
    for (size_t d = keptExt.size(); d-- > 0;) {
      off += (o % keptExt[d]) * keptStride[d];
      o /= keptExt[d];
    }
    return off;
  }
};

std::vector<int64_t> reduceAxes(const NodeInfo& info, int64_t rank) {
  const ir::Node& node = *info.node;
  const int64_t opset = info.graph->opsetVersion;
  const bool fromInput = opset >= (node.opType == "ReduceSum" ? 13 : 18);
  std::vector<int64_t> raw;
  if (fromInput) {
    if (info.numInputs() > 1 && info.inPresent[1]) {
      const ir::Tensor* t = info.constant(1);
      if (!t) throw ops::OpError("the axes input must be a constant");
      raw = t->toInt64s();
    }
  } else {
    raw = node.attrs.getInts("axes");
  }
  if (rank == 0) raw.clear();
  std::vector<int64_t> axes;
  if (raw.empty()) {
    if (node.attrs.getInt("noop_with_empty_axes", 0) != 0) return {};
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    return axes;
  }
  for (int64_t a : raw) axes.push_back(ops::normalizeAxis(a, rank, "reduction axis"));
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

Plan planOf(const NodeInfo& info) {
  Plan p;
  const ReduceKind* kind = nullptr;
  for (const ReduceKind& k : kKinds)
    if (info.node->opType == k.type) kind = &k;
  if (!kind) throw ops::OpError("no reduce rKernel for " + info.node->opType);
  p.kind = *kind;
  const ir::Shape& x = info.inShapes.at(0);
  const std::vector<int64_t> axes = reduceAxes(info, static_cast<int64_t>(x.size()));
  const std::vector<int64_t> st = rowMajorStrides(x);
  for (size_t d = 0; d < x.size(); ++d) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
    (reduced ? p.redExt : p.keptExt).push_back(x[d]);
    (reduced ? p.redStride : p.keptStride).push_back(st[d]);
    (reduced ? p.count : p.outputs) *= x[d];
  }
  if (p.outputs != ir::numElements(info.outShapes.at(0)))
    throw ops::OpError("reduced shape disagrees with the output shape " + ir::shapeToString(info.outShapes[0]));
  return p;
}

}  // namespace

const std::vector<std::string>& reduceOpTypes() {
  static const std::vector<std::string> types = [] {
    std::vector<std::string> t;
    for (const ReduceKind& k : kKinds) t.emplace_back(k.type);
    return t;
  }();
  return types;
}

std::vector<RKernel> reduceKernels(const NodeInfo& info) {
  const Plan plan = planOf(info);
  const int64_t inputs = plan.outputs * plan.count;
  const std::string idx = indexType(inputs + 4096);
  const std::string fold = foldType(plan.kind, plan.count), kept = boxArg(plan.keptExt, plan.keptStride),
                    reduced = boxArg(plan.redExt, plan.redStride);

  // Thread per output element.
  ElementKernelSpec spec;
  spec.family = "reduce";
  spec.total = plan.outputs;
  spec.flops = static_cast<double>(inputs);
  spec.bytes = 4.0 * static_cast<double>(inputs + plan.outputs);
  spec.library = kReduce;
  spec.templateName = "rammer_reduce_thread";
  spec.templateArgs = {idx, fold, kept, reduced};
  spec.args = [](const std::string&) { return rtaskArgs(1, 1); };  // the axes are baked in
  std::vector<RKernel> out = elementKernels(info, spec);

  // A warp per output element, kWarpRows per rTask: where the reduced dims
  // are innermost, a warp's lanes read consecutive inputs together (the
  // thread-per-output variant's lanes read `count` apart).
  if (plan.count >= kWarpLanes) {
    const int threads = kWarpRows * kWarpLanes;
    RKernel k = kernelShell(info, "reduce_warp", "reduce", {{"outputs_per_rtask", kWarpRows}, {"count", plan.count}},
                            divUp(plan.outputs, kWarpRows), threads, 4 * threads, spec.flops, spec.bytes);
    useCudaLibrary(k, kReduce);
    k.syncCount += segmentReduceSyncs(kWarpLanes);
    k.cudaSource = cudaInstantiation(k.cudaFunction, info.numInputs(), info.numOutputs(),
                                     {"rammer_reduce_warp",
                                      {idx, std::to_string(threads), std::to_string(kWarpRows),
                                       std::to_string(kWarpLanes), llArg(plan.outputs), fold, kept, reduced},
                                      rtaskArgs(1, 1)});
    k.written = rowsPerRTask(kWarpRows, plan.outputs, 1);
    out.push_back(std::move(k));
  }

  // Block per output element: worth it when each output folds many inputs.
  if (plan.count >= 64) {
    const int threads = powerOfTwoThreads(plan.count, 32, 256);
    RKernel k = kernelShell(info, "reduce_block", "reduce", {{"threads", threads}, {"count", plan.count}}, plan.outputs,
                            threads, 4 * threads, spec.flops, spec.bytes);
    useCudaLibrary(k, kReduce);
    k.syncCount += segmentReduceSyncs(threads);
    k.cudaSource = cudaInstantiation(k.cudaFunction, info.numInputs(), info.numOutputs(),
                                     {"rammer_reduce_block", {idx, std::to_string(threads), fold, kept, reduced}, rtaskArgs(1, 1)});
    k.written = rowsPerRTask(1, plan.outputs, 1);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

#include "core/kernels/reduce_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

float initial(Merge m) {
  switch (m) {
    case Merge::Mul: return 1.0f;
    case Merge::Max: return -std::numeric_limits<float>::infinity();
    case Merge::Min: return std::numeric_limits<float>::infinity();
    default: return 0.0f;
  }
}
std::string mergeCuda(Merge m) {
  switch (m) {
    case Merge::Mul: return "(a * b)";
    case Merge::Max: return "((b > a || b != b) ? b : a)";
    case Merge::Min: return "((b < a || b != b) ? b : a)";
    default: return "(a + b)";
  }
}
std::string termCuda(Term t, const std::string& v) {
  return t == Term::Abs ? "fabsf(" + v + ")" : t == Term::Square ? "(" + v + " * " + v + ")" : v;
}
std::string finishCuda(Finish f, const std::string& v, int64_t count) {
  switch (f) {
    case Finish::Mean: return "(" + v + " / " + cudaFloatLiteral(static_cast<float>(count)) + ")";
    case Finish::Sqrt: return "sqrtf(" + v + ")";
    case Finish::Log: return "logf(" + v + ")";
    default: return v;
  }
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

// CUDA: `name` = input offset of box index `var` over (ext, stride).
std::string boxOffset(const std::string& idx, const std::string& name, const std::string& var,
                      const std::vector<int64_t>& ext, const std::vector<int64_t>& stride, const std::string& indent) {
  std::string s = indent + idx + " " + name + " = 0;\n" + indent + "{ " + idx + " r = " + var + ";";
  for (size_t d = ext.size(); d-- > 0;)
    s += " " + name + " += (r % " + std::to_string(ext[d]) + ") * " + std::to_string(stride[d]) + "; r /= " +
         std::to_string(ext[d]) + ";";
  return s + " (void)r; }\n";
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
  const std::string init = cudaFloatLiteral(initial(plan.kind.merge)), mergeText = mergeCuda(plan.kind.merge);

  // Thread per output element.
  ElementKernelSpec spec;
  spec.family = "reduce";
  spec.total = plan.outputs;
  spec.flops = static_cast<double>(inputs);
  spec.bytes = 4.0 * static_cast<double>(inputs + plan.outputs);
  spec.body = [plan, init, mergeText](const std::string& ix, const std::string&) {
    std::string s = boxOffset(ix, "base", "i", plan.keptExt, plan.keptStride, "    ");
    s += "    float acc = " + init + ";\n";
    s += "    for (" + ix + " j = 0; j < " + std::to_string(plan.count) + "; ++j) {\n";
    s += boxOffset(ix, "off", "j", plan.redExt, plan.redStride, "      ");
    s += "      const float a = acc, b = " + termCuda(plan.kind.term, "in0[base + off]") + "; acc = " + mergeText + ";\n";
    s += "    }\n    out0[i] = " + finishCuda(plan.kind.finish, "acc", plan.count) + ";\n";
    return s;
  };
  std::vector<RKernel> out = elementKernels(info, spec);

  // A warp per output element, kWarpRows per rTask: where the reduced dims
  // are innermost, a warp's lanes read consecutive inputs together (the
  // thread-per-output variant's lanes read `count` apart).
  if (plan.count >= kWarpLanes) {
    const int threads = kWarpRows * kWarpLanes;
    RKernel k = kernelShell(info, "reduce_warp", "reduce", {{"outputs_per_rtask", kWarpRows}, {"count", plan.count}},
                            divUp(plan.outputs, kWarpRows), threads, 4 * threads, spec.flops, spec.bytes);
    const std::string t = std::to_string(threads), lanes = std::to_string(kWarpLanes);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs());
    s += "  const " + idx + " first = (" + idx + ")rtask_id * " + std::to_string(kWarpRows) + " + (tid / " + lanes +
         ");\n";
    s += "  const int lane = tid % " + lanes + ";\n";
    s += "  const bool active = tid < " + t + " && first < " + std::to_string(plan.outputs) + ";\n";
    s += "  const " + idx + " o = active ? first : 0;\n";
    s += boxOffset(idx, "base", "o", plan.keptExt, plan.keptStride, "  ");
    s += "  float acc = " + init + ";\n";
    s += "  if (active)\n    for (" + idx + " j = lane; j < " + std::to_string(plan.count) + "; j += " + lanes + ") {\n";
    s += boxOffset(idx, "off", "j", plan.redExt, plan.redStride, "      ");
    s += "      const float a = acc, b = " + termCuda(plan.kind.term, "in0[base + off]") + "; acc = " + mergeText + ";\n";
    s += "    }\n";
    s += cudaSegmentReduce(k, "acc", mergeText, threads, kWarpLanes);
    s += "  if (active && lane == 0) out0[o] = " + finishCuda(plan.kind.finish, "acc", plan.count) + ";\n}\n";
    k.cudaSource = s;
    const int64_t outputs = plan.outputs;
    k.written = rowsPerRTask(kWarpRows, outputs, 1);
    out.push_back(std::move(k));
  }

  // Block per output element: worth it when each output folds many inputs.
  if (plan.count >= 64) {
    const int threads = powerOfTwoThreads(plan.count, 32, 256);
    RKernel k = kernelShell(info, "reduce_block", "reduce", {{"threads", threads}, {"count", plan.count}}, plan.outputs,
                            threads, 4 * threads, spec.flops, spec.bytes);
    const std::string t = std::to_string(threads);
    std::string s = cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs());
    s += "  const " + idx + " o = rtask_id;\n";
    s += boxOffset(idx, "base", "o", plan.keptExt, plan.keptStride, "  ");
    s += "  float acc = " + init + ";\n";
    s += "  if (tid < " + t + ")\n    for (" + idx + " j = tid; j < " + std::to_string(plan.count) + "; j += " + t + ") {\n";
    s += boxOffset(idx, "off", "j", plan.redExt, plan.redStride, "      ");
    s += "      const float a = acc, b = " + termCuda(plan.kind.term, "in0[base + off]") + "; acc = " + mergeText + ";\n";
    s += "    }\n";
    s += cudaBlockReduce(k, "acc", mergeText, threads);
    s += "  if (tid == 0) out0[o] = " + finishCuda(plan.kind.finish, "acc", plan.count) + ";\n}\n";
    k.cudaSource = s;
    k.written = rowsPerRTask(1, plan.outputs, 1);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

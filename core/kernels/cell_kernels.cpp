#include "core/kernels/cell_kernels.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "core/kernels/cuda_library.h"
#include "core/ops/rnn/cell_ops.h"
#include "core/ops/rnn/rnn_activations.h"

namespace rammer::kernels {

namespace {

using ops::RnnActivation;
using Kind = RnnActivation::Kind;

std::string actCuda(const RnnActivation& a, const std::string& v) {
  const std::string al = cudaFloatLiteral(a.alpha), be = cudaFloatLiteral(a.beta);
  switch (a.kind) {
    case Kind::Relu: return "(" + v + " > 0.0f ? " + v + " : 0.0f)";
    case Kind::Tanh: return "tanhf(" + v + ")";
    case Kind::Sigmoid: return "(1.0f / (1.0f + expf(-" + v + ")))";
    case Kind::Affine: return "(" + al + " * " + v + " + " + be + ")";
    case Kind::LeakyRelu: return "(" + v + " >= 0.0f ? " + v + " : " + al + " * " + v + ")";
    case Kind::ThresholdedRelu: return "(" + v + " >= " + al + " ? " + v + " : 0.0f)";
    case Kind::ScaledTanh: return "(" + al + " * tanhf(" + be + " * " + v + "))";
    case Kind::HardSigmoid: return "fminf(fmaxf(" + al + " * " + v + " + " + be + ", 0.0f), 1.0f)";
    case Kind::Elu: return "(" + v + " >= 0.0f ? " + v + " : " + al + " * expm1f(" + v + "))";
    case Kind::Softsign: return "(" + v + " / (1.0f + fabsf(" + v + ")))";
    case Kind::Softplus: return "(fmaxf(" + v + ", 0.0f) + log1pf(expf(-fabsf(" + v + "))))";
  }
  return v;
}

struct Cell {
  std::string type;
  int64_t batch = 0, hidden = 0;
  std::vector<RnnActivation> acts;
  std::optional<float> clip;
  bool inputForget = false;
  std::vector<bool> has;  // per input slot
  std::vector<bool> outs;  // per output slot
  // The recurrent product is the rKernel's own sum (CellRecurrence): the
  // cell reads it from the sums in registers instead of the hr slot.
  bool fusedHR = false;

  bool in(size_t k) const { return k < has.size() && has[k]; }
  bool out(size_t k) const { return k < outs.size() && outs[k]; }
};

std::string clipCuda(const Cell& c, const std::string& v) {
  if (!c.clip) return v;
  const std::string k = cudaFloatLiteral(*c.clip);
  return "fminf(fmaxf(" + v + ", -" + k + "), " + k + ")";
}

constexpr size_t kNoSlot = ~size_t{0};

// A cell as cell.cuh's template: its type (the shape and which inputs and
// outputs it has as parameters), its activations and clip as local types
// (the generated part), the input slot of the recurrent product and the
// slots of its inputs a0..a3.
struct CellTemplate {
  std::string type, locals;
  size_t hr = kNoSlot;
  std::vector<size_t> slots;

  // The arguments after rtask_id, tid, smem: the cell's inputs (an omitted
  // one a null pointer) and outputs.
  std::vector<std::string> args(const Cell& c) const {
    std::vector<std::string> a;
    for (size_t slot : slots) a.push_back(c.in(slot) ? "in" + std::to_string(slot) : "(const float*)0");
    for (size_t o = 0; o < 2; ++o) a.push_back(c.out(o) ? "out" + std::to_string(o) : "(float*)0");
    return a;
  }
};

CellTemplate cellTemplate(const Cell& c) {
  using namespace ops;
  auto act = [](const char* name, const RnnActivation& a) { return cudaExpressionOp(name, 1, "", actCuda(a, "x0")); };
  CellTemplate t;
  t.locals = cudaExpressionOp("Clip", 1, "", clipCuda(c, "x0"));
  const std::string H = std::to_string(c.hidden);
  if (c.type == kLstmCellOp) {
    t.hr = kLstmCellHR;
    t.slots = {kLstmCellXW, kLstmCellBias, kLstmCellC, kLstmCellP};
    t.locals += act("F", c.acts[0]) + act("G", c.acts[1]) + act("Ha", c.acts[2]);
    t.type = "RammerLstmCell<" + H + ", " + boolArg(c.in(kLstmCellXW)) + ", " + boolArg(c.in(kLstmCellBias)) + ", " +
             boolArg(c.fusedHR || c.in(kLstmCellHR)) + ", " + boolArg(c.in(kLstmCellC)) + ", " +
             boolArg(c.in(kLstmCellP)) + ", " + boolArg(c.inputForget) + ", " + boolArg(c.out(0)) + ", " +
             boolArg(c.out(1)) + ", F, G, Ha, Clip>";
  } else if (c.type == kGruGatesOp) {
    t.hr = kGruGatesHR;
    t.slots = {kGruGatesXW, kGruGatesBias, kGruGatesH, kNoSlot};
    t.locals += act("F", c.acts[0]);
    t.type = "RammerGruGates<" + H + ", " + boolArg(c.in(kGruGatesXW)) + ", " + boolArg(c.in(kGruGatesBias)) + ", " +
             boolArg(c.fusedHR || c.in(kGruGatesHR)) + ", " + boolArg(c.in(kGruGatesH)) + ", " + boolArg(c.out(0)) +
             ", " + boolArg(c.out(1)) + ", F, Clip>";
  } else if (c.type == kGruCandidateOp) {
    t.hr = kGruCandRHR;
    t.slots = {kGruCandXW, kGruCandBias, kGruCandZ, kGruCandH};
    t.locals += act("G", c.acts[1]);
    t.type = "RammerGruCandidate<" + H + ", " + boolArg(c.in(kGruCandXW)) + ", " + boolArg(c.in(kGruCandBias)) +
             ", " + boolArg(c.fusedHR || c.in(kGruCandRHR)) + ", " + boolArg(c.in(kGruCandZ)) + ", " +
             boolArg(c.in(kGruCandH)) + ", G, Clip>";
  } else {
    t.hr = kGruCellHR;
    t.slots = {kGruCellXW, kGruCellBias, kGruCellRbH, kGruCellH};
    t.locals += act("F", c.acts[0]) + act("G", c.acts[1]);
    t.type = "RammerGruCell<" + H + ", " + boolArg(c.in(kGruCellXW)) + ", " + boolArg(c.in(kGruCellBias)) + ", " +
             boolArg(c.fusedHR || c.in(kGruCellHR)) + ", " + boolArg(c.in(kGruCellRbH)) + ", " +
             boolArg(c.in(kGruCellH)) + ", F, G, Clip>";
  }
  return t;
}

// A cell that carries its recurrent product (ops::CellRecurrence): the GEMV
// family's gates variant (gemv.cuh, rammer_gemv_gates), J columns of every
// gate block per rTask and the cell's arithmetic applied to the sums, so
// the product is never stored. Two widths: J = 32 (a warp per column run)
// and J = 8 (four times the rTasks, each group of 8 lanes one 32-byte
// sector per block per k).
std::vector<RKernel> cellGemvKernels(const NodeInfo& info, Cell c, const ops::CellRecurrence& rec,
                                     const ElementKernelSpec& spec) {
  const int64_t M = c.batch, H = c.hidden, K = info.inShapes.at(rec.hSlot).at(1), NW = rec.blocks * H;
  if (M * rec.blocks > ops::kMaxCellGateOutputs)
    throw ops::OpError(fmt::format("a cell with its recurrent product takes batch x gate blocks <= {}, got {} x {}",
                                   ops::kMaxCellGateOutputs, M, rec.blocks));
  c.fusedHR = true;
  const CellTemplate cell = cellTemplate(c);
  const std::string idx = indexType(std::max(M * NW, K * NW) + NW);
  std::vector<RKernel> out;
  auto instantiate = [&](RKernel& k, const char* fn, std::vector<std::string> params) {
    std::vector<std::string> args = {"rtask_id", "tid", "smem", "in" + std::to_string(rec.hSlot),
                                     "in" + std::to_string(rec.weightSlot)};
    for (std::string& a : cell.args(c)) args.push_back(std::move(a));
    k.cudaSource =
        cudaInstantiation(k.cudaFunction, info.numInputs(), info.numOutputs(), {fn, std::move(params), args, cell.locals});
  };
  // rTask k writes columns [j0, j0 + cols) of every batch row of each output.
  auto written = [M, H, outs = c.outs](int64_t J) {
    return [M, H, J, outs](int64_t task, std::vector<WrittenRun>& runs) {
      const int64_t j0 = task * J, cols = std::min(J, H - j0);
      for (size_t o = 0; o < outs.size(); ++o)
        if (outs[o])
          for (int64_t m = 0; m < M; ++m) runs.push_back(WrittenRun{static_cast<int32_t>(o), m * H + j0, cols, 1});
    };
  };
  for (const int64_t J : {32, 8}) {
    const int64_t tasks = divUp(H, J);
    if (M * J > 256 || (!out.empty() && out.back().numRTasks == tasks)) continue;
    // W once; h once per rTask (it stays in L2).
    const double bytes = spec.bytes + 4.0 * static_cast<double>(M * K * (tasks - 1));
    const double flops = spec.flops + 2.0 * static_cast<double>(M * K * NW);
    RKernel k = kernelShell(info, fmt::format("gemv_{}_j{}", spec.family, J), "gemv",
                            {{"columns_per_rtask", J}, {"gate_blocks", rec.blocks}, {"M", M}, {"N", NW}, {"K", K},
                             {"register_budget", 64}},
                            tasks, 256, 4 * 256 * M * rec.blocks, flops, bytes);
    k.regsEstimate = 64;
    k.syncCount = 2;
    useCudaLibrary(k, kGemvCell);
    instantiate(k, "rammer_gemv_cell",
                {idx, std::to_string(M), std::to_string(rec.blocks), std::to_string(J), llArg(K), llArg(NW), llArg(H),
                 cell.type});
    k.written = written(J);
    out.push_back(std::move(k));
  }
  // The persistent cells (issue #45 item 3): each width again with the
  // rTask's slice of the recurrent weights kept in shared memory across
  // steps (gemv_cell.cuh, rammer_gemv_cell_resident), where the weights are
  // a constant every step's cell shares. `bytes` is a step that finds its
  // slice loaded: h, the cell's other inputs and outputs; the first step's
  // load of W is `residentReadBytes`.
  if (!info.constant(rec.weightSlot)) return out;
  const std::string& weight = info.graph->value(info.node->input(rec.weightSlot)).name;
  const size_t plain = out.size();
  for (size_t v = 0; v < plain; ++v) {
    const int64_t J = out[v].params.at("columns_per_rtask"), tasks = out[v].numRTasks;
    int64_t S = rec.blocks * J;  // a slice row, padded so a warp's groups (consecutive k) use different banks
    if (J < 32) S += ((J - S % 32) % 32 + 32) % 32;
    const int64_t resident = 4 * K * S + kResidentTagBytes;
    if (resident > kMaxResidentBytes) continue;
    const double weightBytes = 4.0 * static_cast<double>(K * NW);
    RKernel k = kernelShell(info, fmt::format("gemv_{}_resident_j{}", spec.family, J), "gemv",
                            {{"columns_per_rtask", J}, {"gate_blocks", rec.blocks}, {"M", M}, {"N", NW}, {"K", K},
                             {"slice_row", S}, {"register_budget", 64}},
                            tasks, 256, 4 * 256 * M * rec.blocks, out[v].flops, out[v].bytes - weightBytes);
    k.regsEstimate = 64;
    k.syncCount = 4;
    k.residentBytes = resident;
    k.residentValue = weight;
    k.residentReadBytes = weightBytes;
    useCudaLibrary(k, kGemvCell);
    instantiate(k, "rammer_gemv_cell_resident",
                {idx, std::to_string(M), std::to_string(rec.blocks), std::to_string(J), llArg(K), llArg(NW), llArg(H),
                 llArg(S), cell.type});
    k.written = written(J);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& cellOpTypes() {
  static const std::vector<std::string> types = {ops::kLstmCellOp, ops::kGruGatesOp, ops::kGruCandidateOp,
                                                 ops::kGruCellOp};
  return types;
}

std::vector<RKernel> cellKernels(const NodeInfo& info) {
  Cell c;
  c.type = info.node->opType;
  const bool lstm = c.type == ops::kLstmCellOp;
  const ir::Shape& out = info.outShapes.at(0);
  if (out.size() != 2) throw ops::OpError("cell outputs must be [batch, hidden]");
  c.batch = out[0];
  c.hidden = out[1];
  c.has = info.inPresent;
  c.outs = info.outPresent;
  const ops::OpContext ctx = info.context();
  const int64_t nd = info.node->attrs.getInt("num_directions", 1);
  const int64_t dir = info.node->attrs.getInt("direction_index", 0);
  const std::vector<std::string> defaults =
      lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"} : std::vector<std::string>{"Sigmoid", "Tanh"};
  const std::vector<RnnActivation> all = ops::readRnnActivations(ctx, defaults, nd);
  if (dir < 0 || (dir + 1) * static_cast<int64_t>(defaults.size()) > static_cast<int64_t>(all.size()))
    throw ops::OpError("direction_index out of range");
  c.acts.assign(all.begin() + dir * static_cast<int64_t>(defaults.size()),
                all.begin() + (dir + 1) * static_cast<int64_t>(defaults.size()));
  if (info.node->attrs.has("clip")) c.clip = info.node->attrs.getFloat("clip", 0.0f);
  c.inputForget = info.node->attrs.getInt("input_forget", 0) != 0;
  std::string family = c.type;
  std::transform(family.begin(), family.end(), family.begin(), [](unsigned char ch) { return std::tolower(ch); });

  ElementKernelSpec spec;
  spec.family = family;
  spec.total = c.batch * c.hidden;
  spec.flops = static_cast<double>(spec.total) * (lstm ? 20 : 10);
  double bytes = 0;
  for (size_t i = 0; i < info.numInputs(); ++i)
    if (info.inPresent[i]) bytes += 4.0 * static_cast<double>(ir::numElements(info.inShapes[i]));
  for (size_t i = 0; i < info.numOutputs(); ++i)
    if (info.outPresent[i]) bytes += 4.0 * static_cast<double>(ir::numElements(info.outShapes[i]));
  spec.bytes = bytes;
  const ops::CellRecurrence& rec = *ops::cellRecurrence(c.type);
  if (c.in(rec.weightSlot)) return cellGemvKernels(info, c, rec, spec);
  // cell.cuh's element-wise rKernel, the product read from its slot.
  const CellTemplate cell = cellTemplate(c);
  spec.library = kCell;
  spec.templateName = "rammer_cell";
  spec.templateArgs = {cell.type};
  spec.locals = [locals = cell.locals](const std::string&) { return locals; };
  std::vector<std::string> args = {"rtask_id", "tid", "smem",
                                   c.in(cell.hr) ? "in" + std::to_string(cell.hr) : "(const float*)0"};
  for (std::string& a : cell.args(c)) args.push_back(std::move(a));
  spec.args = [args](const std::string&) { return args; };
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

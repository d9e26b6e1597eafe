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
  // CUDA text reads it as hrv[blk] instead of from the hr slot.
  bool fusedHR = false;

  bool out(size_t k) const { return k < outs.size() && outs[k]; }
};

// Text and CPU evaluation share this sequence of steps: a statement list
// where each step is `name = expr` on floats. The CPU side mirrors it.
float clipV(const Cell& c, float v) { return c.clip ? std::clamp(v, -*c.clip, *c.clip) : v; }
std::string clipCuda(const Cell& c, const std::string& v) {
  if (!c.clip) return v;
  const std::string k = cudaFloatLiteral(*c.clip);
  return "fminf(fmaxf(" + v + ", -" + k + "), " + k + ")";
}

// Reads input `slot` at `offset`, or "0.0f" when omitted.
std::string rd(const Cell& c, size_t slot, const std::string& offset) {
  return slot < c.has.size() && c.has[slot] ? "in" + std::to_string(slot) + "[" + offset + "]" : std::string("0.0f");
}
// Column block `blk` of the recurrent product for this element, read at
// `offset` of the hr slot when it comes as a tensor.
std::string hrd(const Cell& c, size_t slot, int blk, const std::string& offset) {
  return c.fusedHR ? "hrv[" + std::to_string(blk) + "]" : rd(c, slot, offset);
}
bool hasHR(const Cell& c, size_t slot) { return c.fusedHR || (slot < c.has.size() && c.has[slot]); }
float rv(const Cell& c, const TaskBuffers& b, size_t slot, int64_t offset) {
  return slot < c.has.size() && c.has[slot] ? b.inputs[slot][offset] : 0.0f;
}

std::string cudaCell(const Cell& c) {
  const std::string H = std::to_string(c.hidden);
  std::string s = "    const int bb = (int)(i / " + H + "), j = (int)(i % " + H + ");\n";
  auto line = [&](const std::string& name, const std::string& e) { s += "    float " + name + " = " + e + ";\n"; };
  // No `x = x;` when a step (no clip, identity activation) changes nothing:
  // clang's -Wself-assign rejects it.
  auto set = [&](const std::string& name, const std::string& e) {
    if (e != name) s += "    " + name + " = " + e + ";\n";
  };
  const RnnActivation& f = c.acts[0];
  const RnnActivation& g = c.acts[1];
  if (c.type == ops::kLstmCellOp) {
    using namespace ops;
    const std::string G = std::to_string(4 * c.hidden);
    auto gate = [&](const std::string& name, int blk) {
      const std::string off = std::to_string(blk * c.hidden) + " + j";
      line(name, "(" + rd(c, kLstmCellXW, "bb * " + G + " + " + off) + " + " + rd(c, kLstmCellBias, off) + ")");
      if (hasHR(c, kLstmCellHR)) set(name, name + " + " + hrd(c, kLstmCellHR, blk, "bb * " + G + " + " + off));
    };
    gate("gi", 0);
    gate("go", 1);
    gate("gf", 2);
    gate("gc", 3);
    line("cp", rd(c, kLstmCellC, "bb * " + H + " + j"));
    const bool P = c.has.size() > kLstmCellP && c.has[kLstmCellP];
    if (P) set("gi", "gi + " + rd(c, kLstmCellP, "j") + " * cp");
    set("gi", clipCuda(c, "gi"));
    set("gi", actCuda(f, "gi"));
    if (c.inputForget) {
      set("gf", "1.0f - gi");
    } else {
      if (P) set("gf", "gf + " + rd(c, kLstmCellP, std::to_string(2 * c.hidden) + " + j") + " * cp");
      set("gf", clipCuda(c, "gf"));
      set("gf", actCuda(f, "gf"));
    }
    set("gc", clipCuda(c, "gc"));
    set("gc", actCuda(g, "gc"));
    line("cn", "gf * cp + gi * gc");
    if (P) set("go", "go + " + rd(c, kLstmCellP, H + " + j") + " * cn");
    set("go", clipCuda(c, "go"));
    set("go", actCuda(f, "go"));
    line("t", clipCuda(c, "cn"));
    set("t", actCuda(c.acts[2], "t"));
    if (c.out(0)) s += "    out0[i] = go * t;\n";
    if (c.out(1)) s += "    out1[i] = cn;\n";
    return s;
  }
  const std::string G = std::to_string(3 * c.hidden);
  auto sum3 = [&](const std::string& name, const std::string& xwOff, const std::string& bOff, size_t hrSlot, int blk,
                  const std::string& hrOff) {
    line(name, "(" + rd(c, 0, "bb * " + G + " + " + xwOff) + " + " + rd(c, 2, bOff) + ")");
    if (hrSlot != 99 && hasHR(c, hrSlot)) set(name, name + " + " + hrd(c, hrSlot, blk, hrOff));
  };
  const std::string Hj = H + " + j", H2j = std::to_string(2 * c.hidden) + " + j";
  if (c.type == ops::kGruGatesOp) {
    const std::string H2 = std::to_string(2 * c.hidden);
    sum3("z", "j", "j", ops::kGruGatesHR, 0, "bb * " + H2 + " + j");
    sum3("r", Hj, Hj, ops::kGruGatesHR, 1, "bb * " + H2 + " + " + Hj);
    set("z", actCuda(f, clipCuda(c, "z")));
    set("r", actCuda(f, clipCuda(c, "r")));
    if (c.out(0)) s += "    out0[i] = z;\n";
    if (c.out(1)) s += "    out1[i] = " + std::string(c.has.size() > ops::kGruGatesH && c.has[ops::kGruGatesH]
                                                                 ? "r * in" + std::to_string(ops::kGruGatesH) + "[i]"
                                                                 : "0.0f") + ";\n";
    return s;
  }
  const size_t hSlot = c.type == ops::kGruCandidateOp ? size_t{ops::kGruCandH} : size_t{ops::kGruCellH};
  const std::string hp = rd(c, hSlot, "i");
  if (c.type == ops::kGruCandidateOp) {
    sum3("ht", H2j, H2j, ops::kGruCandRHR, 0, "i");
    set("ht", actCuda(g, clipCuda(c, "ht")));
    line("z", rd(c, ops::kGruCandZ, "i"));
  } else {
    sum3("z", "j", "j", ops::kGruCellHR, 0, "bb * " + G + " + j");
    sum3("r", Hj, Hj, ops::kGruCellHR, 1, "bb * " + G + " + " + Hj);
    sum3("ht", H2j, H2j, 99, 2, "");
    set("z", actCuda(f, clipCuda(c, "z")));
    set("r", actCuda(f, clipCuda(c, "r")));
    const std::string hrH = hrd(c, ops::kGruCellHR, 2, "bb * " + G + " + " + H2j);
    set("ht", "ht + r * (" + hrH + " + " + rd(c, ops::kGruCellRbH, "j") + ")");
    set("ht", actCuda(g, clipCuda(c, "ht")));
  }
  s += "    out0[i] = (1.0f - z) * ht + z * " + hp + ";\n";
  return s;
}

void cpuCell(const Cell& c, const TaskBuffers& b, int64_t i) {
  const int64_t H = c.hidden, bb = i / H, j = i % H;
  const RnnActivation& f = c.acts[0];
  const RnnActivation& g = c.acts[1];
  auto has = [&](size_t slot) { return slot < c.has.size() && c.has[slot]; };
  if (c.type == ops::kLstmCellOp) {
    using namespace ops;
    const int64_t G = 4 * H;
    auto gate = [&](int blk) {
      const int64_t off = blk * H + j;
      float v = rv(c, b, kLstmCellXW, bb * G + off) + rv(c, b, kLstmCellBias, off);
      if (has(kLstmCellHR)) v = v + rv(c, b, kLstmCellHR, bb * G + off);
      return v;
    };
    float gi = gate(0), go = gate(1), gf = gate(2), gc = gate(3);
    const float cp = rv(c, b, kLstmCellC, bb * H + j);
    const bool P = has(kLstmCellP);
    if (P) gi = gi + rv(c, b, kLstmCellP, j) * cp;
    gi = f(clipV(c, gi));
    if (c.inputForget) {
      gf = 1.0f - gi;
    } else {
      if (P) gf = gf + rv(c, b, kLstmCellP, 2 * H + j) * cp;
      gf = f(clipV(c, gf));
    }
    gc = g(clipV(c, gc));
    const float cn = gf * cp + gi * gc;
    if (P) go = go + rv(c, b, kLstmCellP, H + j) * cn;
    go = f(clipV(c, go));
    const float t = c.acts[2](clipV(c, cn));
    if (b.outputs.size() > 0 && b.outputs[0]) b.outputs[0][i] = go * t;
    if (b.outputs.size() > 1 && b.outputs[1]) b.outputs[1][i] = cn;
    return;
  }
  const int64_t G = 3 * H;
  auto sum3 = [&](int64_t xwOff, int64_t bOff, std::optional<std::pair<size_t, int64_t>> hr) {
    float v = rv(c, b, 0, bb * G + xwOff) + rv(c, b, 2, bOff);
    if (hr && has(hr->first)) v = v + rv(c, b, hr->first, hr->second);
    return v;
  };
  if (c.type == ops::kGruGatesOp) {
    float z = sum3(j, j, std::pair{size_t{ops::kGruGatesHR}, bb * 2 * H + j});
    float r = sum3(H + j, H + j, std::pair{size_t{ops::kGruGatesHR}, bb * 2 * H + H + j});
    z = f(clipV(c, z));
    r = f(clipV(c, r));
    if (b.outputs[0]) b.outputs[0][i] = z;
    if (b.outputs.size() > 1 && b.outputs[1]) b.outputs[1][i] = has(ops::kGruGatesH) ? r * b.inputs[ops::kGruGatesH][i] : 0.0f;
    return;
  }
  const size_t hSlot = c.type == ops::kGruCandidateOp ? size_t{ops::kGruCandH} : size_t{ops::kGruCellH};
  float ht = 0, z = 0;
  if (c.type == ops::kGruCandidateOp) {
    ht = g(clipV(c, sum3(2 * H + j, 2 * H + j, std::pair{size_t{ops::kGruCandRHR}, i})));
    z = rv(c, b, ops::kGruCandZ, i);
  } else {
    z = f(clipV(c, sum3(j, j, std::pair{size_t{ops::kGruCellHR}, bb * G + j})));
    const float r = f(clipV(c, sum3(H + j, H + j, std::pair{size_t{ops::kGruCellHR}, bb * G + H + j})));
    ht = sum3(2 * H + j, 2 * H + j, std::nullopt);
    ht = ht + r * (rv(c, b, ops::kGruCellHR, bb * G + 2 * H + j) + rv(c, b, ops::kGruCellRbH, j));
    ht = g(clipV(c, ht));
  }
  b.outputs[0][i] = (1.0f - z) * ht + z * rv(c, b, hSlot, i);
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
  Cell plain = c;  // the CPU tile reads its sums as an hr tensor
  plain.has[rec.hr] = true;
  c.fusedHR = true;
  const std::string body = cudaCell(c);
  const std::string idx = indexType(std::max(M * NW, K * NW) + NW);
  std::vector<RKernel> out;
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
    k.cudaLibraries = {kGemv};
    k.cudaSource = fmt::format(R"({sig}
  typedef {I} I;
  const I j0 = (I)rtask_id * {J};
  const I cols = {H} - j0 < {J} ? {H} - j0 : {J};
  auto cell = [&](int m, int jl, const float* hrv) {{
    const I i = (I)m * {H} + j0 + jl;
{body}  }};
  rammer_gemv_gates<{M}, {B}, {J}, 4, {K}LL, {NW}LL, {H}LL, I>(tid, smem, in{h}, in{w} + j0, cols, (I){K}, cell);
}}
)",
                               fmt::arg("sig", cudaSignature(k.cudaFunction, info.numInputs(), info.numOutputs())),
                               fmt::arg("I", idx), fmt::arg("J", J), fmt::arg("H", H), fmt::arg("body", body),
                               fmt::arg("M", M), fmt::arg("B", rec.blocks), fmt::arg("K", K), fmt::arg("NW", NW),
                               fmt::arg("h", rec.hSlot), fmt::arg("w", rec.weightSlot));
    k.cpu = [plain, rec, M, H, K, NW, J](int64_t task, const TaskBuffers& b, float*) {
      const int64_t j0 = task * J, cols = std::min(J, H - j0);
      thread_local std::vector<float> hr;
      hr.assign(static_cast<size_t>(M * NW), 0.0f);
      const float* a = b.inputs[rec.hSlot];
      const float* w = b.inputs[rec.weightSlot];
      for (int64_t m = 0; m < M; ++m)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t blk = 0; blk < rec.blocks; ++blk)
            for (int64_t j = j0; j < j0 + cols; ++j) hr[m * NW + blk * H + j] += a[m * K + k] * w[k * NW + blk * H + j];
      TaskBuffers withHr = b;
      withHr.inputs[rec.hr] = hr.data();
      for (int64_t m = 0; m < M; ++m)
        for (int64_t j = j0; j < j0 + cols; ++j) cpuCell(plain, withHr, m * H + j);
    };
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
  spec.body = [c](const std::string&, const std::string&) { return cudaCell(c); };
  const ops::CellRecurrence& rec = *ops::cellRecurrence(c.type);
  if (rec.weightSlot < c.has.size() && c.has[rec.weightSlot]) return cellGemvKernels(info, c, rec, spec);
  return elementKernels(info, spec);
}

}  // namespace rammer::kernels

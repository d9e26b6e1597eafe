// LstmCell, GruGates, GruCandidate, GruCell (domain com.rammer): the gate
// arithmetic of one unrolled RNN step (see cell_ops.h for the slots). Typing
// and attributes here; the row arithmetic is in cell_rows.cpp.
#include "core/ops/rnn/cell_ops.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/ops/math/gemm.h"
#include "core/ops/rnn/cell_rows.h"
#include "core/ops/op_registry.h"
#include "core/ops/rnn/rnn_activations.h"
#include "core/ops/rnn/rnn_spec.h"

namespace rammer::ops {

namespace {

constexpr int64_t kUnknown = ir::kUnknownDim;

struct CellKind {
  const char* type;
  int64_t xwGates;                  // blocks of xw: 4 (LSTM) or 3 (GRU)
  std::vector<std::string> acts;    // default activations per direction
};

// Hidden size from the attribute, else from xw's last dim; kUnknown when
// neither tells.
int64_t hiddenSize(const OpContext& ctx, int64_t xwGates) {
  if (ctx.attrs().has("hidden_size")) {
    const int64_t h = ctx.attrs().getInt("hidden_size", 0);
    if (h <= 0) ctx.fail("hidden_size must be positive, got " + std::to_string(h));
    return h;
  }
  const ir::TensorType& t = ctx.type(0);
  if (!t.rankKnown || t.shape.size() != 2 || t.shape[1] < 0) return kUnknown;
  if (t.shape[1] % xwGates != 0)
    ctx.fail("xw has " + std::to_string(t.shape[1]) + " columns, not a multiple of " + std::to_string(xwGates));
  return t.shape[1] / xwGates;
}

int64_t mul(int64_t a, int64_t b) { return a < 0 || b < 0 ? kUnknown : a * b; }

// OpError unless a present input has `expected` shape (unknown dims on either
// side are not compared).
void expectShape(const OpContext& ctx, size_t slot, const char* name, const ir::Shape& expected) {
  if (ctx.has(slot)) ctx.expectDType(slot, {ir::DType::Float32});
  expectRnnShape(ctx, slot, name, expected);
}

// Batch size: the first known leading dim of the [B, ...] inputs.
int64_t batchSize(const OpContext& ctx, std::initializer_list<size_t> rowInputs) {
  for (size_t slot : rowInputs)
    if (ctx.has(slot) && ctx.type(slot).rankKnown && !ctx.shape(slot).empty() && ctx.shape(slot)[0] >= 0)
      return ctx.shape(slot)[0];
  return kUnknown;
}

// This cell's activation functions: its direction's entries of the recurrent
// node's list.
std::vector<RnnActivation> cellActivations(const OpContext& ctx, const std::vector<std::string>& defaults) {
  const int64_t nd = ctx.attrs().getInt("num_directions", 1);
  const int64_t dir = ctx.attrs().getInt("direction_index", 0);
  if (nd != 1 && nd != 2) ctx.fail("num_directions must be 1 or 2, got " + std::to_string(nd));
  if (dir < 0 || dir >= nd)
    ctx.fail("direction_index " + std::to_string(dir) + " is outside [0, " + std::to_string(nd) + ")");
  const std::vector<RnnActivation> all = readRnnActivations(ctx, defaults, nd);
  const auto per = static_cast<std::ptrdiff_t>(defaults.size());
  return {all.begin() + dir * per, all.begin() + (dir + 1) * per};
}

std::optional<float> cellClip(const OpContext& ctx) {
  if (!ctx.attrs().has("clip")) return std::nullopt;
  const float clip = ctx.attrs().getFloat("clip", 0.0f);
  if (!(clip > 0.0f)) ctx.fail("clip must be positive, got " + std::to_string(clip));
  return clip;
}

// The recurrent product's operands when the cell carries them (cell_ops.h):
// h [B, K] and R^T [K, blocks * H], and then no hr tensor.
void checkRecurrence(const OpContext& ctx, const CellKind& k, int64_t B, int64_t H) {
  const CellRecurrence& r = *cellRecurrence(k.type);
  if (!ctx.has(r.weightSlot)) {
    if (ctx.has(r.hSlot)) ctx.fail("has the recurrent product's h but not its R^T");
    return;
  }
  if (!ctx.has(r.hSlot)) ctx.fail("has the recurrent product's R^T but not its h");
  if (ctx.has(r.hr)) ctx.fail("has both a recurrent product tensor and its operands");
  ctx.expectDType(r.hSlot, {ir::DType::Float32});
  ctx.expectDType(r.weightSlot, {ir::DType::Float32});
  const ir::TensorType& ht = ctx.type(r.hSlot);
  const int64_t K = ht.rankKnown && ht.shape.size() == 2 ? ht.shape[1] : kUnknown;
  expectRnnShape(ctx, r.hSlot, "recurrent h", {B, K});
  expectRnnShape(ctx, r.weightSlot, "recurrent R^T", {K, mul(r.blocks, H)});
}

// Checks every slot before the recurrence's against B and H; returns [B, H].
ir::Shape checkCellSlots(const OpContext& ctx, const CellKind& k, int64_t& H) {
  H = hiddenSize(ctx, k.xwGates);
  const std::string type = k.type;
  if (type == kLstmCellOp) {
    ctx.expectInputs(1, 7);
    const int64_t B = batchSize(ctx, {kLstmCellXW, kLstmCellHR, kLstmCellC});
    expectShape(ctx, kLstmCellXW, "xw", {B, mul(4, H)});
    expectShape(ctx, kLstmCellHR, "hr", {B, mul(4, H)});
    expectShape(ctx, kLstmCellBias, "bias", {mul(4, H)});
    expectShape(ctx, kLstmCellC, "c_prev", {B, H});
    expectShape(ctx, kLstmCellP, "P", {mul(3, H)});
    return {B, H};
  }
  if (type == kGruGatesOp) {
    ctx.expectInputs(1, 6);
    const int64_t B = batchSize(ctx, {kGruGatesXW, kGruGatesHR, kGruGatesH});
    expectShape(ctx, kGruGatesXW, "xw", {B, mul(3, H)});
    expectShape(ctx, kGruGatesHR, "hr", {B, mul(2, H)});
    expectShape(ctx, kGruGatesBias, "bias", {mul(3, H)});
    expectShape(ctx, kGruGatesH, "h_prev", {B, H});
    return {B, H};
  }
  if (type == kGruCandidateOp) {
    ctx.expectInputs(4, 7);
    if (!ctx.has(kGruCandZ)) ctx.fail("missing the z input");
    const int64_t B = batchSize(ctx, {kGruCandXW, kGruCandRHR, kGruCandZ, kGruCandH});
    expectShape(ctx, kGruCandXW, "xw", {B, mul(3, H)});
    expectShape(ctx, kGruCandRHR, "rhr", {B, H});
    expectShape(ctx, kGruCandBias, "bias", {mul(3, H)});
    expectShape(ctx, kGruCandZ, "z", {B, H});
    expectShape(ctx, kGruCandH, "h_prev", {B, H});
    return {B, H};
  }
  ctx.expectInputs(1, 7);  // GruCell
  const int64_t B = batchSize(ctx, {kGruCellXW, kGruCellHR, kGruCellH});
  expectShape(ctx, kGruCellXW, "xw", {B, mul(3, H)});
  expectShape(ctx, kGruCellHR, "hr", {B, mul(3, H)});
  expectShape(ctx, kGruCellBias, "bias", {mul(3, H)});
  expectShape(ctx, kGruCellRbH, "rb_h", {H});
  expectShape(ctx, kGruCellH, "h_prev", {B, H});
  return {B, H};
}

// Checks every input's shape against B and H; returns [B, H].
ir::Shape checkCell(const OpContext& ctx, const CellKind& k, int64_t& H) {
  const ir::Shape out = checkCellSlots(ctx, k, H);
  checkRecurrence(ctx, k, out[0], H);
  return out;
}

size_t numCellOutputs(const CellKind& k) {
  const std::string type = k.type;
  return type == kLstmCellOp || type == kGruGatesOp ? 2 : 1;
}

std::vector<ir::TensorType> inferCell(const OpContext& ctx, const CellKind& k) {
  if (!ctx.has(0)) ctx.fail("missing the xw input");
  int64_t H = 0;
  const ir::Shape out = checkCell(ctx, k, H);
  cellActivations(ctx, k.acts);
  cellClip(ctx);
  if (ctx.numOutputs() > numCellOutputs(k))
    ctx.fail("has " + std::to_string(ctx.numOutputs()) + " outputs, expected at most " +
             std::to_string(numCellOutputs(k)));
  return std::vector<ir::TensorType>(numCellOutputs(k), ir::TensorType{ir::DType::Float32, out});
}

const float* dataOf(const OpContext& ctx, size_t slot) {
  return ctx.has(slot) ? ctx.tensor(slot).data<float>() : nullptr;
}

std::vector<ir::Tensor> computeCell(const OpContext& ctx, const CellKind& k) {
  if (!ctx.has(0)) ctx.fail("missing the xw input");
  int64_t H = 0;
  const ir::Shape out = checkCell(ctx, k, H);
  const std::vector<RnnActivation> acts = cellActivations(ctx, k.acts);
  // hr computed here when the cell carries the product's operands.
  const CellRecurrence& rec = *cellRecurrence(k.type);
  std::vector<float> product;
  const float* hr = dataOf(ctx, rec.hr);
  if (ctx.has(rec.weightSlot)) {
    const int64_t K = ctx.shape(rec.hSlot)[1], N = rec.blocks * H;
    product.assign(static_cast<size_t>(out[0] * N), 0.0f);
    sgemm(false, false, out[0], N, K, 1.0f, dataOf(ctx, rec.hSlot), K, dataOf(ctx, rec.weightSlot), N, 0.0f, product.data(), N);
    hr = product.data();
  }
  CellArgs a;
  a.batch = out[0];
  a.hidden = H;
  a.acts = acts.data();
  a.clip = cellClip(ctx);
  a.xw = dataOf(ctx, 0);
  const std::string type = k.type;
  std::vector<ir::Tensor> res;
  res.emplace_back(ir::DType::Float32, out);
  if (type == kLstmCellOp) {
    a.hr = hr;
    a.bias = dataOf(ctx, kLstmCellBias);
    a.cPrev = dataOf(ctx, kLstmCellC);
    a.peep = dataOf(ctx, kLstmCellP);
    a.inputForget = ctx.attrs().getInt("input_forget", 0) != 0;
    res.emplace_back(ir::DType::Float32, out);
    lstmCellRows(a, res[0].data<float>(), res[1].data<float>());
  } else if (type == kGruGatesOp) {
    a.hr = hr;
    a.bias = dataOf(ctx, kGruGatesBias);
    a.hPrev = dataOf(ctx, kGruGatesH);
    res.emplace_back(ir::DType::Float32, out);
    gruGatesRows(a, res[0].data<float>(), res[1].data<float>());
  } else if (type == kGruCandidateOp) {
    a.hr = hr;
    a.bias = dataOf(ctx, kGruCandBias);
    a.zGate = dataOf(ctx, kGruCandZ);
    a.hPrev = dataOf(ctx, kGruCandH);
    gruCandidateRows(a, res[0].data<float>());
  } else {
    a.hr = hr;
    a.bias = dataOf(ctx, kGruCellBias);
    a.rbH = dataOf(ctx, kGruCellRbH);
    a.hPrev = dataOf(ctx, kGruCellH);
    gruCellRows(a, res[0].data<float>());
  }
  res.resize(ctx.numOutputs());  // omitted output slots stay empty
  for (size_t i = 0; i < res.size(); ++i)
    if (!ctx.hasOutput(i)) res[i] = ir::Tensor();
  return res;
}

// Per [B, H] element: the gate sums, the activations and the state update.
double cellFlops(const OpContext& ctx, const CellKind& k, std::span<const ir::TensorType> outs) {
  if (outs.empty()) return 0.0;
  const int64_t n = ir::numElements(outs[0].shape);
  if (n < 0) return 0.0;
  const std::string type = k.type;
  double perElement = 0;
  if (type == kLstmCellOp) {
    // 4 gates x (bias + hr adds + activation), c = f*c + i*g (3), h = o*act(c) (2), peepholes 3 x 2.
    perElement = 4 * 3 + 3 + 2 + (ctx.has(kLstmCellP) ? 6 : 0);
  } else if (type == kGruGatesOp) {
    perElement = 2 * 3 + 1;  // z, r gates and r*h
  } else if (type == kGruCandidateOp) {
    perElement = 3 + 4;  // candidate gate and (1-z)*h~ + z*h
  } else {
    perElement = 3 * 3 + 3 + 4;  // GruCell: 3 gates, reset product, update
  }
  // The recurrent product, when the cell computes it: 2 K flops per gate column.
  const CellRecurrence& rec = *cellRecurrence(k.type);
  if (ctx.has(rec.weightSlot) && ctx.type(rec.weightSlot).rankKnown && ctx.shape(rec.weightSlot).size() == 2 && ctx.shape(rec.weightSlot)[0] >= 0)
    perElement += 2.0 * static_cast<double>(rec.blocks * ctx.shape(rec.weightSlot)[0]);
  return static_cast<double>(n) * perElement;
}

void addCell(OpRegistry& r, CellKind k) {
  OpDef def;
  def.type = k.type;
  def.domain = kRammerDomain;
  def.category = OpCategory::Elementwise;
  def.infer = [k](const OpContext& ctx) { return inferCell(ctx, k); };
  def.compute = [k](const OpContext& ctx) { return computeCell(ctx, k); };
  def.flops = [k](const OpContext& ctx, std::span<const ir::TensorType> outs) { return cellFlops(ctx, k, outs); };
  r.add(std::move(def));
}

}  // namespace

const CellRecurrence* cellRecurrence(const std::string& opType) {
  static const CellRecurrence lstm{kLstmCellHR, 5, 6, 4}, gates{kGruGatesHR, 4, 5, 2}, cand{kGruCandRHR, 5, 6, 1},
      cell{kGruCellHR, 5, 6, 3};
  if (opType == kLstmCellOp) return &lstm;
  if (opType == kGruGatesOp) return &gates;
  if (opType == kGruCandidateOp) return &cand;
  if (opType == kGruCellOp) return &cell;
  return nullptr;
}

void registerCellOps(OpRegistry& r) {
  addCell(r, {kLstmCellOp, 4, {"Sigmoid", "Tanh", "Tanh"}});
  addCell(r, {kGruGatesOp, 3, {"Sigmoid", "Tanh"}});
  addCell(r, {kGruCandidateOp, 3, {"Sigmoid", "Tanh"}});
  addCell(r, {kGruCellOp, 3, {"Sigmoid", "Tanh"}});
}

}  // namespace rammer::ops

#include "core/ops/rnn/rnn_spec.h"

#include <string>

namespace rammer::ops {

namespace {

constexpr int64_t kUnknown = ir::kUnknownDim;

int64_t dimOrUnknown(const OpContext& ctx, size_t slot, size_t dim) {
  if (!ctx.has(slot)) return kUnknown;
  const ir::TensorType& t = ctx.type(slot);
  if (!t.rankKnown || dim >= t.shape.size()) return kUnknown;
  return t.shape[dim];
}

int64_t mul(int64_t a, int64_t b) { return a < 0 || b < 0 ? kUnknown : a * b; }


const char* gatesName(RnnKind kind) {
  switch (kind) {
    case RnnKind::Rnn: return "hidden_size";
    case RnnKind::Gru: return "3*hidden_size";
    case RnnKind::Lstm: return "4*hidden_size";
  }
  return "";
}

}  // namespace

void expectRnnShape(const OpContext& ctx, size_t slot, const char* name, const ir::Shape& expected,
                    const char* meaning) {
  if (!ctx.has(slot)) return;
  const ir::TensorType& t = ctx.type(slot);
  if (!t.rankKnown) return;
  bool ok = t.shape.size() == expected.size();
  for (size_t i = 0; ok && i < expected.size(); ++i)
    ok = t.shape[i] < 0 || expected[i] < 0 || t.shape[i] == expected[i];
  if (!ok)
    ctx.fail(std::string(name) + " has shape " + ir::shapeToString(t.shape) + ", expected " +
             ir::shapeToString(expected) + (meaning ? std::string(" (") + meaning + ")" : std::string()));
}


RnnSpec readRnnSpec(const OpContext& ctx, RnnKind kind) {
  const ir::Attributes& a = ctx.attrs();
  RnnSpec s;
  s.kind = kind;
  s.gates = kind == RnnKind::Rnn ? 1 : kind == RnnKind::Gru ? 3 : 4;
  ctx.expectInputs(3, kind == RnnKind::Lstm ? 8 : 6);
  if (ctx.numOutputs() > static_cast<size_t>(s.numOutputs()))
    ctx.fail("has " + std::to_string(ctx.numOutputs()) + " outputs, expected at most " +
             std::to_string(s.numOutputs()));

  const std::string direction = a.getString("direction", "forward");
  if (direction == "bidirectional") s.numDirections = 2;
  else if (direction == "reverse") s.reverse = true;
  else if (direction != "forward")
    ctx.fail("direction '" + direction + "' is not one of forward, reverse, bidirectional");

  s.layout = a.getInt("layout", 0);
  if (s.layout != 0 && s.layout != 1) ctx.fail("layout must be 0 or 1, got " + std::to_string(s.layout));
  if (a.has("clip")) {
    s.clip = a.getFloat("clip", 0.0f);
    if (!(*s.clip > 0.0f)) ctx.fail("clip must be positive, got " + std::to_string(*s.clip));
  }
  s.inputForget = kind == RnnKind::Lstm && a.getInt("input_forget", 0) != 0;
  s.linearBeforeReset = kind == RnnKind::Gru && a.getInt("linear_before_reset", 0) != 0;

  for (size_t slot : {kRnnX, kRnnW, kRnnR})
    if (ctx.type(slot).rankKnown && ctx.rank(slot) != 3)
      ctx.fail(std::string(slot == kRnnX ? "X" : slot == kRnnW ? "W" : "R") + " must have rank 3, got shape " +
               ir::shapeToString(ctx.shape(slot)));
  for (size_t slot = 0; slot < ctx.numInputs(); ++slot) {
    if (!ctx.has(slot)) continue;
    if (slot == kRnnSeqLens) ctx.expectDType(slot, {ir::DType::Int32, ir::DType::Int64});
    else if (slot == kRnnX) ctx.expectDType(slot, {ir::DType::Float32, ir::DType::Float64, ir::DType::Float16});
    else ctx.expectDType(slot, {ctx.dtype(kRnnX)});
  }

  s.seq = dimOrUnknown(ctx, kRnnX, s.layout == 0 ? 0 : 1);
  s.batch = dimOrUnknown(ctx, kRnnX, s.layout == 0 ? 1 : 0);
  s.input = dimOrUnknown(ctx, kRnnX, 2);
  if (s.input < 0) s.input = dimOrUnknown(ctx, kRnnW, 2);
  if (a.has("hidden_size")) {
    s.hidden = a.getInt("hidden_size", 0);
    if (s.hidden <= 0) ctx.fail("hidden_size must be positive, got " + std::to_string(s.hidden));
  } else {
    s.hidden = dimOrUnknown(ctx, kRnnR, 2);
  }

  const int64_t nd = s.numDirections, gh = mul(s.gates, s.hidden);
  const std::string gates = gatesName(kind);
  const std::string wMeaning = "[num_directions, " + gates + ", input_size]";
  const std::string rMeaning = "[num_directions, " + gates + ", hidden_size]";
  const std::string bMeaning = "[num_directions, 2*" + gates + "]";
  expectRnnShape(ctx, kRnnW, "W", {nd, gh, s.input}, wMeaning.c_str());
  expectRnnShape(ctx, kRnnR, "R", {nd, gh, s.hidden}, rMeaning.c_str());
  expectRnnShape(ctx, kRnnB, "B", {nd, mul(2, gh)}, bMeaning.c_str());
  expectRnnShape(ctx, kRnnSeqLens, "sequence_lens", {s.batch}, "[batch_size]");
  const ir::Shape stateShape = s.layout == 0 ? ir::Shape{nd, s.batch, s.hidden} : ir::Shape{s.batch, nd, s.hidden};
  const char* stateMeaning =
      s.layout == 0 ? "[num_directions, batch_size, hidden_size]" : "[batch_size, num_directions, hidden_size]";
  expectRnnShape(ctx, kRnnInitialH, "initial_h", stateShape, stateMeaning);
  if (kind == RnnKind::Lstm) {
    expectRnnShape(ctx, kRnnInitialC, "initial_c", stateShape, stateMeaning);
    expectRnnShape(ctx, kRnnP, "P", {nd, mul(3, s.hidden)}, "[num_directions, 3*hidden_size]");
  }
  return s;
}

std::vector<ir::TensorType> inferRnnOutputs(const OpContext& ctx, const RnnSpec& s) {
  const ir::DType dt = ctx.dtype(kRnnX);
  const int64_t nd = s.numDirections;
  ir::TensorType y{dt, s.layout == 0 ? ir::Shape{s.seq, nd, s.batch, s.hidden}
                                     : ir::Shape{s.batch, s.seq, nd, s.hidden}};
  ir::TensorType state{dt, s.layout == 0 ? ir::Shape{nd, s.batch, s.hidden} : ir::Shape{s.batch, nd, s.hidden}};
  std::vector<ir::TensorType> out{y, state};
  if (s.kind == RnnKind::Lstm) out.push_back(state);
  return out;
}

double rnnFlops(const RnnSpec& s) {
  if (s.seq < 0 || s.batch < 0 || s.input < 0 || s.hidden < 0) return 0.0;
  return 2.0 * static_cast<double>(s.input + s.hidden) * static_cast<double>(s.gates * s.hidden) *
         static_cast<double>(s.seq * s.batch * s.numDirections);
}

}  // namespace rammer::ops

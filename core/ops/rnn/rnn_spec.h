#pragma once
// What RNN, GRU and LSTM nodes share: their input slots, attributes and the
// shape checks and output types that follow from them.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/ops/op_context.h"

namespace rammer::ops {

enum class RnnKind { Rnn, Gru, Lstm };

// ONNX input slots, common to the three ops (initial_c and P: LSTM only).
enum RnnInput : size_t { kRnnX = 0, kRnnW, kRnnR, kRnnB, kRnnSeqLens, kRnnInitialH, kRnnInitialC, kRnnP };

struct RnnSpec {
  RnnKind kind = RnnKind::Rnn;
  int64_t gates = 1;          // weight blocks per direction: RNN 1, GRU 3, LSTM 4
  int64_t numDirections = 1;  // 2 when bidirectional
  bool reverse = false;       // direction == "reverse"
  int64_t layout = 0;         // 0: [seq, batch, ...]; 1: batch first (opset 14)
  // kUnknownDim where inference cannot tell yet.
  int64_t seq = -1, batch = -1, input = -1, hidden = -1;
  std::optional<float> clip;
  bool inputForget = false;        // LSTM: couple the forget gate to the input gate
  bool linearBeforeReset = false;  // GRU: apply R_h before the reset gate

  int64_t numOutputs() const { return kind == RnnKind::Lstm ? 3 : 2; }
};

// Reads the attributes and checks every present input's shape where known;
// OpError naming the input and the expected shape otherwise.
RnnSpec readRnnSpec(const OpContext& ctx, RnnKind kind);

// Y, Y_h (and Y_c for LSTM), laid out as `layout` says.
std::vector<ir::TensorType> inferRnnOutputs(const OpContext& ctx, const RnnSpec& spec);

// 2 FLOPs per multiply-add of the input and recurrent products.
double rnnFlops(const RnnSpec& spec);

// OpError unless a present input has `expected` shape; unknown dims on either
// side are not compared. `meaning`, when given, names the dims in the message.
void expectRnnShape(const OpContext& ctx, size_t slot, const char* name, const ir::Shape& expected,
                    const char* meaning = nullptr);

}  // namespace rammer::ops

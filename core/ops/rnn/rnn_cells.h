#pragma once
// The float32 time loop of one direction of an RNN, GRU or LSTM layer.
#include <cstdint>
#include <vector>

#include "core/ops/rnn/rnn_activations.h"
#include "core/ops/rnn/rnn_spec.h"

namespace rammer::ops {

// One direction's parameters, pointers into the node's inputs.
struct RnnDirectionParams {
  const float* W = nullptr;   // [gates*hidden, input]
  const float* R = nullptr;   // [gates*hidden, hidden]
  const float* Wb = nullptr;  // [gates*hidden], nullptr: zero
  const float* Rb = nullptr;  // [gates*hidden], nullptr: zero
  const float* P = nullptr;   // LSTM peepholes [3*hidden] (i, o, f), nullptr: none
  const float* h0 = nullptr;  // [batch, hidden], nullptr: zero
  const float* c0 = nullptr;  // LSTM [batch, hidden], nullptr: zero
  const RnnActivation* activations = nullptr;  // this direction's f (, g (, h))
};

// Where one direction writes its results; nullptr for an output not wanted.
struct RnnDirectionOutputs {
  float* Y = nullptr;   // [seq, num_directions, batch, hidden]; zero-filled by the caller
  float* Yh = nullptr;  // [batch, hidden]
  float* Yc = nullptr;  // [batch, hidden]
};

// Runs direction `dir` (which selects the Y slot) over X [seq, batch, input].
// `lens` holds each batch entry's length (<= seq): steps past it leave Y zero
// and the state unchanged; a reversed direction starts at each entry's last
// valid step. Entries of length 0 get zero final states (as ONNX Runtime).
void runRnnDirection(const RnnSpec& spec, int64_t dir, bool reverse, const float* X,
                     const std::vector<int64_t>& lens, const RnnDirectionParams& p, const RnnDirectionOutputs& out);

}  // namespace rammer::ops

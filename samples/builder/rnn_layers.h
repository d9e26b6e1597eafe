#pragma once
// Recurrent layers on sequence-first tensors [seq, batch, features]. Every
// LSTM layer is one ONNX LSTM node (forward, no peepholes) whose Y
// [seq, 1, batch, hidden] is followed by Squeeze(axes=[1]); the pass that
// unrolls LSTMs into cells relies on exactly this pattern.
#include <cstdint>
#include <string>
#include <vector>

#include "samples/builder/model_builder.h"

namespace rammer::samples {

struct LstmLayer {
  ir::ValueId y = ir::kNone;   // squeezed Y: [seq, batch, hidden]
  ir::ValueId yh = ir::kNone;  // final hidden state [1, batch, hidden]
  ir::ValueId yc = ir::kNone;  // final cell state [1, batch, hidden]
};

// One LSTM layer, nodes `name` (LSTM) and `name.squeeze`; weights
// `name.W`, `name.R`, `name.B` uniform in +-1/sqrt(hidden) (PyTorch's init).
// `h0`/`c0` are optional initial states [1, batch, hidden].
LstmLayer lstm(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t hidden, ir::ValueId h0 = ir::kNone,
               ir::ValueId c0 = ir::kNone);

// `layers` stacked layers named `prefix.lstm<k>`; layer k starts from
// initial[k] when given (h and c), else from zeros.
std::vector<LstmLayer> lstmStack(ModelBuilder& b, const std::string& prefix, ir::ValueId x, int64_t layers,
                                 int64_t hidden, const std::vector<LstmLayer>& initial = {});

// Dense layer on the last axis of [seq, batch, in]: MatMul by [in, out], then
// Add of a bias [out]. Nodes `name.matmul`, `name` (the Add).
ir::ValueId sequenceDense(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out);

}  // namespace rammer::samples

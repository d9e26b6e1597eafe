#pragma once
// The NASNet-A cells (Zoph et al., "Learning Transferable Architectures for
// Scalable Image Recognition", 2018, Fig. 4) and the rules that wire them:
// each cell first brings its two inputs to `filters` channels, then computes
// five blocks, each the sum of two ops on earlier hidden states, and
// concatenates the states the cell's definition lists as outputs.
#include <cstdint>
#include <string>
#include <vector>

#include "samples/builder/model_builder.h"

namespace rammer::samples {

enum class NasOp { Sep3x3, Sep5x5, Sep7x7, AvgPool3x3, MaxPool3x3, Identity };

struct NasCellSpec {
  // Block k adds ops[2k](state[inputs[2k]]) and ops[2k+1](state[inputs[2k+1]]);
  // state 0 is the cell's input, 1 the previous cell's, 2+k block k's output.
  std::vector<NasOp> ops;
  std::vector<int> inputs;
  // Per state: concatenated into the cell's output. Fixed by the cell's
  // definition, not by use: the normal cell also outputs its second input,
  // which two of its ops read.
  std::vector<bool> output;
};

NasCellSpec nasnetANormalCell();
NasCellSpec nasnetAReductionCell();

// Builds one cell on `net` (the previous cell's output) and `prev` (the one
// before, kNone for none). Ops on the two cell inputs use `stride` (2 in
// reduction cells). Returns the concatenated output.
ir::ValueId nasnetCell(ModelBuilder& b, const std::string& name, const NasCellSpec& spec, ir::ValueId net,
                       ir::ValueId prev, int64_t filters, int64_t stride);

}  // namespace rammer::samples

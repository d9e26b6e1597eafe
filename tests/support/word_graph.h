#pragma once
// Integer and bool tensors computed at run time (issue #30 item 2), in the
// shape a language model's front end has them: token ids (an int64 graph
// input) gathered into embeddings, a padding mask from the ids (Equal, Not),
// cast to float and applied, attention scores masked with Where by the
// padding mask And a causal mask (a constant), ArgMax of the
// probabilities, integer arithmetic on the ids, the bool masks as outputs,
// and float comparisons that fuse into the Where or Not reading them. Seeded
// random int inputs lie in [0, 10), inside the vocabulary.
#include <stdexcept>

#include "tests/support/graph_builder.h"

namespace rammer::testing {

inline ir::Graph tokenMaskGraph() {
  GraphBuilder b;
  const int64_t batch = 2, seq = 8, vocab = 16, dim = 12;
  const ir::ValueId ids = b.input("ids", {batch, seq}, ir::DType::Int64);
  const ir::ValueId emb = b.op("Gather", "embed", {b.constant("table", randomTensor({vocab, dim}, 21)), ids});
  const ir::ValueId pad = b.op("Equal", "is_pad", {ids, b.constant("pad_id", ir::Tensor::scalar<int64_t>(0))});
  const ir::ValueId keep = b.op("Not", "keep", {pad});
  const ir::ValueId keepf = b.op("Cast", "keep_f", {keep}, attrs({{"to", static_cast<int64_t>(ir::DType::Float32)}}));
  const ir::ValueId col = b.op("Reshape", "keep_col",
                               {keepf, b.constant("col_shape", ir::Tensor::fromVector<int64_t>({3}, {batch, seq, 1}))});
  const ir::ValueId x = b.op("Mul", "masked_emb", {emb, col});
  const ir::ValueId xt = b.op("Transpose", "xt", {x}, attrs({{"perm", std::vector<int64_t>{0, 2, 1}}}));
  const ir::ValueId scores = b.op("MatMul", "scores", {x, xt});
  ir::Tensor causal(ir::DType::Bool, {seq, seq});
  for (int64_t r = 0; r < seq; ++r)
    for (int64_t c = 0; c < seq; ++c) causal.data<bool>()[r * seq + c] = c <= r;
  const ir::ValueId keepRow = b.op(
      "Reshape", "keep_row", {keep, b.constant("row_shape", ir::Tensor::fromVector<int64_t>({3}, {batch, 1, seq}))});
  const ir::ValueId allowed = b.op("And", "allowed", {b.constant("causal", std::move(causal)), keepRow});
  const ir::ValueId masked =
      b.op("Where", "mask_scores", {allowed, scores, b.constant("neg", ir::Tensor::scalar<float>(-1e4f))});
  const ir::ValueId probs = b.op("Softmax", "probs", {masked}, attrs({{"axis", int64_t{-1}}}));
  b.output(probs);
  b.output(b.op("ArgMax", "pick", {probs}, attrs({{"axis", int64_t{-1}}, {"keepdims", int64_t{0}}})));
  const ir::ValueId shifted = b.op("Add", "ids_plus", {ids, b.constant("one", ir::Tensor::scalar<int64_t>(3))});
  b.output(b.op("Mod", "ids_mod", {shifted, b.constant("five", ir::Tensor::scalar<int64_t>(5))}));
  b.output(keep);
  b.output(allowed);  // read by Where and written out: Where reads its words
  // Float comparisons read only by the next op: fused into it as 0/1 values.
  const ir::ValueId confident =
      b.op("Greater", "confident", {probs, b.constant("quarter", ir::Tensor::scalar<float>(0.25f))});
  b.output(b.op("Where", "kept", {confident, probs, b.constant("zero", ir::Tensor::scalar<float>(0.0f))}));
  const ir::ValueId seen = b.op("Greater", "seen", {probs, b.constant("tenth", ir::Tensor::scalar<float>(0.1f))});
  b.output(b.op("Not", "rare", {seen}));
  if (!b.infer().empty()) throw std::runtime_error("the token mask graph does not infer");
  return b.graph();
}

}  // namespace rammer::testing

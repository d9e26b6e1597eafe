#pragma once
// One operator of every rKernel family side by side, its shapes drawn from
// a seed (element-wise through the fusion pass, word element-wise, copies,
// Gather by run-time indices, ScatterND, ArgMax, Trilu, window and global
// pooling, reductions, CumSum, softmax, layer norm, attention, GEMM and
// GEMV, convolution and depthwise convolution with and without epilogues,
// LSTM and GRU cells), through the standard passes: what the kernel
// equivalence test runs and the library compile tests build for every
// candidate (issue #44 items 1 and 3).
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/ops/op_registry.h"
#include "core/passes/pass_manager.h"
#include "tests/support/graph_builder.h"

namespace rammer::testing {

// One draw of shapes per family from `seed`.
inline ir::Graph familyGraph(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  GraphBuilder b;
  uint32_t w = seed * 1000;
  auto weight = [&](const std::string& name, ir::Shape s) { return b.constant(name, randomTensor(s, ++w)); };
  auto ints = [&](std::vector<int64_t> v) { return ir::Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); };

  // Element-wise (FusedElementwise after the passes): a broadcast bias and an activation.
  {
    const int64_t r = pick(1, 6), c = pick(3, 900);
    b.output(b.op("Relu", "ew", {b.op("Add", "ew.add", {b.input("ew.x", {r, c}), weight("ew.b", {c})})}));
  }
  // Word element-wise: integer comparison into a mask, Where on it, a Cast.
  {
    const int64_t n = pick(5, 700);
    const ir::ValueId mask = b.op("Less", "less", {b.input("w.a", {n}, ir::DType::Int64), b.input("w.b", {n}, ir::DType::Int64)});
    b.output(b.op("Where", "where", {mask, b.input("w.x", {n}), b.input("w.y", {n})}));
    b.output(b.op("Cast", "cast", {b.input("w.f", {n})}, attrs({{"to", static_cast<int64_t>(ir::DType::Int32)}})));
  }
  // Copies: Transpose, Concat, Slice with a step, Pad, Gather by constant indices.
  {
    const int64_t a = pick(2, 9), c = pick(2, 9), d = pick(2, 40);
    const ir::ValueId x = b.input("c.x", {a, c, d});
    std::vector<int64_t> perm = {0, 1, 2};
    std::shuffle(perm.begin(), perm.end(), rng);
    b.output(b.op("Transpose", "transpose", {x}, attrs({{"perm", perm}})));
    const int64_t axis = pick(0, 2);
    ir::Shape other = {a, c, d};
    other[static_cast<size_t>(axis)] = pick(1, 7);
    b.output(b.op("Concat", "concat", {x, b.input("c.y", other)}, attrs({{"axis", axis}})));
    b.output(b.op("Slice", "slice", {x, b.constant("s.starts", ints({0, 1})), b.constant("s.ends", ints({a, d})),
                                     b.constant("s.axes", ints({0, 2})), b.constant("s.steps", ints({1, 2}))}));
    b.output(b.op("Pad", "pad", {x, b.constant("p.pads", ints({0, pick(0, 2), 1, 1, 0, pick(0, 3)}))}));
    b.output(b.op("Gather", "gather", {x, b.constant("g.idx", ints({c - 1, 0, c / 2}))}, attrs({{"axis", int64_t{1}}})));
  }
  // Gather by run-time token ids (random inputs are in [0, 10)) and ScatterND.
  {
    const int64_t vocab = pick(10, 30), dim = pick(3, 80), tokens = pick(1, 12);
    b.output(b.op("Gather", "embed", {weight("e.table", {vocab, dim}), b.input("e.ids", {tokens}, ir::DType::Int64)}));
    const int64_t rows = pick(4, 12);
    ir::Tensor idx(ir::DType::Int64, {2, 1});
    idx.data<int64_t>()[0] = rows - 1;
    idx.data<int64_t>()[1] = 1;
    b.output(b.op("ScatterND", "scatter", {b.input("sc.x", {rows, dim}), b.constant("sc.idx", idx), b.input("sc.u", {2, dim})}));
  }
  // ArgMax, Trilu.
  {
    const int64_t r = pick(2, 20), c = pick(2, 50);
    b.output(b.op("ArgMax", "argmax", {b.input("am.x", {r, c})}, attrs({{"axis", pick(0, 1)}})));
    b.output(b.op("Trilu", "trilu", {b.input("t.x", {r, c}), b.constant("t.k", ir::Tensor::scalar<int64_t>(pick(-2, 2)))},
                  attrs({{"upper", pick(0, 1)}})));
  }
  // Pooling: windows with strides and pads, and global pools.
  {
    const int64_t n = pick(1, 2), ch = pick(1, 6), h = pick(5, 20), wd = pick(5, 20), k = pick(2, 3), s = pick(1, 2);
    const ir::ValueId x = b.input("pl.x", {n, ch, h, wd});
    const ir::Attributes window = attrs({{"kernel_shape", std::vector<int64_t>{k, k}},
                                         {"strides", std::vector<int64_t>{s, s}},
                                         {"pads", std::vector<int64_t>{1, 0, 1, 0}}});
    b.output(b.op("MaxPool", "maxpool", {x}, window));
    b.output(b.op("AveragePool", "avgpool", {x}, window));
    b.output(b.op("GlobalAveragePool", "gap", {x}));
    b.output(b.op("GlobalMaxPool", "gmp", {b.input("gm.x", {n, ch, pick(4, 80)})}));
  }
  // Reductions, CumSum.
  {
    const int64_t a = pick(1, 8), c = pick(1, 90), d = pick(1, 70);
    const ir::ValueId x = b.input("r.x", {a, c, d});
    b.output(b.op("ReduceSum", "rsum", {x, b.constant("r.axes", ints({pick(1, 2)}))}, attrs({{"keepdims", pick(0, 1)}})));
    b.output(b.op("ReduceMean", "rmean", {x}, attrs({{"axes", std::vector<int64_t>{0, 2}}})));
    b.output(b.op("ReduceMax", "rmax", {x}, attrs({{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{0}}})));
    b.output(b.op("CumSum", "cumsum", {x, b.constant("cs.axis", ir::Tensor::scalar<int64_t>(pick(0, 2)))},
                  attrs({{"reverse", pick(0, 1)}})));
  }
  // Softmax over a random axis, LogSoftmax, LayerNormalization.
  {
    const int64_t a = pick(1, 5), c = pick(2, 1200), d = pick(1, 6);
    b.output(b.op("Softmax", "softmax", {b.input("sm.x", {a, c, d})}, attrs({{"axis", pick(1, 2)}})));
    b.output(b.op("LogSoftmax", "logsoftmax", {b.input("ls.x", {a * d, c})}));
    b.output(b.op("LayerNormalization", "layernorm",
                  {b.input("ln.x", {a, d, c}), weight("ln.scale", {c}), weight("ln.bias", {c})}));
  }
  // Attention (com.rammer): batch of heads, a mask broadcast over heads.
  {
    const int64_t heads = pick(1, 3), sq = pick(1, 70), sk = pick(1, 90), d = pick(1, 3) * 8;
    ir::Attributes scale;
    scale.set("scale", 0.3f);
    const auto outs = b.node("Attention", "attention",
                             {b.input("at.q", {heads, sq, d}), b.input("at.kt", {heads, d, sk}),
                              b.input("at.v", {heads, sk, d}), b.input("at.mask", {1, sq, sk})},
                             scale);
    b.graph().node(b.graph().value(outs[0]).producer).domain = ops::kRammerDomain;
    b.output(outs[0]);
  }
  // GEMM: a batched MatMul, a Gemm with transB and bias + Relu (epilogue), a skinny MatMul (GEMV).
  {
    const int64_t m = pick(2, 150), n = pick(2, 150), k = pick(2, 300);
    b.output(b.op("MatMul", "matmul", {b.input("mm.a", {pick(1, 3), m, k}), weight("mm.b", {k, n})}));
    b.output(b.op("Relu", "gemm.relu", {b.op("Gemm", "gemm", {b.input("gm.a", {m, k}), weight("gm.b", {n, k}), weight("gm.c", {n})},
                                               attrs({{"transB", int64_t{1}}}))}));
    b.output(b.op("MatMul", "gemv", {b.input("gv.a", {pick(1, 4), k}), weight("gv.b", {k, n})}));
  }
  // Convolution with a bias and Relu (FusedConv), and depthwise.
  {
    const int64_t n = pick(1, 2), ci = pick(1, 16), co = pick(1, 24), h = pick(4, 18), k = pick(1, 3);
    b.output(b.op("Relu", "conv.relu",
                  {b.op("Conv", "conv", {b.input("cv.x", {n, ci, h, h}), weight("cv.w", {co, ci, k, k}), weight("cv.b", {co})},
                        attrs({{"pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2}}, {"strides", std::vector<int64_t>{pick(1, 2), 1}}}))}));
    const int64_t ch = pick(2, 24);
    b.output(b.op("Conv", "depthwise", {b.input("dw.x", {n, ch, h, h}), weight("dw.w", {ch, 1, 3, 3})},
                  attrs({{"group", ch}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}})));
  }
  // Recurrent cells: LSTM and GRU lowered by the passes.
  {
    const int64_t seq = pick(1, 3), batch = pick(1, 3), in = pick(2, 40), hidden = pick(2, 40);
    b.output(b.node("LSTM", "lstm",
                    {b.input("lstm.x", {seq, batch, in}), weight("lstm.w", {1, 4 * hidden, in}),
                     weight("lstm.r", {1, 4 * hidden, hidden}), weight("lstm.b", {1, 8 * hidden})},
                    attrs({{"hidden_size", hidden}}), 1)[0]);
    b.output(b.node("GRU", "gru",
                    {b.input("gru.x", {seq, batch, in}), weight("gru.w", {1, 3 * hidden, in}),
                     weight("gru.r", {1, 3 * hidden, hidden}), weight("gru.b", {1, 6 * hidden})},
                    attrs({{"hidden_size", hidden}, {"linear_before_reset", pick(0, 1)}}), 1)[0]);
  }
  const auto errors = b.infer();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().message);
  ir::Graph g = std::move(b.graph());
  passes::PassContext ctx;
  passes::PassOptions options;
  options.fuseEpilogues = true;  // the GEMM's bias + Relu and the convolution's into their epilogues
  auto records = passes::standardPipeline(options).run(g, ctx);
  EXPECT_TRUE(records.ok()) << records.errorText();
  return g;
}

}  // namespace rammer::testing

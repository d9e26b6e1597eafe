#pragma once
// GraphTurbo's SplitInfo (Zhao et al., OSDI'23) for the ops a fused group
// can hold: along which output dims an op can be computed piece by piece,
// and, for a piece [lo, hi) of the output along that dim, which range of
// each input it reads. A producer and a consumer can share a group only
// when the consumer's piece maps onto a range of the producer's own split
// dim; an input read whole (a weight, a broadcast operand, a channel
// reduction) must come from outside the group.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ops/math/fused_expr.h"
#include "core/ops/nn/conv_geometry.h"
#include "core/ops/op_context.h"

namespace rammer::ops {

// A half-open range of one dim.
struct Span {
  int64_t lo = 0, hi = 0;
  int64_t size() const { return hi - lo; }
  friend bool operator==(const Span&, const Span&) = default;
};

// How a range of the output along the split dim maps onto one input.
struct AxisMap {
  enum class Kind {
    Window,  // [lo*stride - offset, (hi-1)*stride - offset + extent) of inputDim (element-wise: 1, 0, 1)
    Blocks,  // output blocks of outBlock map onto input blocks of inBlock (grouped convolution channels)
    Whole,   // the whole input, whatever the piece
  };
  Kind kind = Kind::Whole;
  int inputDim = -1;
  int64_t stride = 1, offset = 0, extent = 1;
  int64_t outBlock = 1, inBlock = 1;

  // The input range output range `out` reads, clamped to [0, inSize); the
  // whole [0, inSize) for Kind::Whole.
  Span inputSpan(Span out, int64_t inSize) const;
};

// What a fused group computes per element for one member op.
enum class MemberKind { Conv, MaxPool, AveragePool, Elementwise };

// A member op with its geometry read once: shared by the split maps, the
// reference and the fused-group rKernel.
struct MemberGeometry {
  MemberKind kind = MemberKind::Elementwise;
  ir::Shape output;
  std::vector<ir::Shape> inputs;  // per slot; empty shape for an omitted slot
  Window3 window;                 // Conv and pooling (canonical 3-D)
  size_t spatial = 0;             // spatial dims of Conv and pooling
  int64_t groups = 1;             // Conv
  bool hasBias = false;           // Conv
  bool countIncludePad = false;   // AveragePool
  std::shared_ptr<const FusedExpr> expr;  // Elementwise

  // Per-element FLOPs (multiply-adds count two).
  double flopsPerElement() const;
};

// The geometry of a node a fused group can hold, or nullopt with `why`
// set: an op type groups do not implement (the message names it), an
// attribute they do not (AveragePool with ceil_mode and
// count_include_pad, MaxPool's indices output), a non-float tensor.
std::optional<MemberGeometry> readMember(const ir::Node& node, const OpContext& ctx, const ir::Shape& output,
                                         std::string& why);

// One map per input slot when the member can be split along output dim
// `dim`; nullopt (with `why`) when it cannot.
std::optional<std::vector<AxisMap>> splitAlong(const MemberGeometry& m, int dim, std::string& why);

}  // namespace rammer::ops

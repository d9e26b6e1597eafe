#include "core/kernels/conv_kernels.h"

#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "core/kernels/cuda_library.h"
#include "core/kernels/epilogue.h"
#include "core/kernels/instantiation.h"
#include "core/kernels/kernel_source.h"
#include "core/kernels/tile_gemm.h"
#include "core/ops/nn/conv_geometry.h"
#include "core/ops/op_context.h"
#include "core/ops/op_registry.h"
#include "core/ops/type_inference.h"

namespace rammer::kernels {

namespace {

struct ConvProblem {
  int64_t batch = 0, cin = 0, cout = 0, group = 1;
  int64_t cg = 0, mg = 0;  // input / output channels per group
  ops::Window3 w;          // canonical 3-D window (1-D/2-D get leading unit dims)
  bool hasBias = false;
  int numInputs = 2;
  bool wideIndex = false;
  Epilogue epilogue;  // FusedConv: applied where each output is stored

  int64_t kg() const { return cg * w.kernelSize(); }  // GEMM depth per group
};

[[noreturn]] void fail(const std::string& msg) { throw ops::OpError(msg); }

const ir::Shape& knownShape(const ir::Graph& g, const ir::Node& n, size_t slot, const char* what) {
  const ir::TensorType& t = g.value(n.input(slot)).type;
  if (t.dtype != ir::DType::Float32)
    fail(std::string(what) + " is " + std::string(ir::dtypeName(t.dtype)) + "; rKernels compute float32 only");
  if (!t.fullyKnown()) fail(std::string(what) + " has shape " + ir::shapeToString(t.shape) + "; rKernels need known shapes");
  return t.shape;
}

ConvProblem convProblem(const ir::Graph& g, const ir::Node& n) {
  if (n.input(0) == ir::kNone || n.input(1) == ir::kNone) fail("Conv needs X and W");
  const ir::Shape x = knownShape(g, n, 0, "X"), wt = knownShape(g, n, 1, "W");
  if (x.size() < 3 || x.size() != wt.size())
    fail("X " + ir::shapeToString(x) + " and W " + ir::shapeToString(wt) + " must both be [N, C, spatial...]");
  if (x.size() > 5) fail("at most 3 spatial dims are supported, X is " + ir::shapeToString(x));
  ConvProblem p;
  p.batch = x[0];
  p.cin = x[1];
  p.cout = wt[0];
  p.group = n.attrs.getInt("group", 1);
  if (p.group < 1 || p.cin % p.group != 0 || p.cout % p.group != 0 || wt[1] * p.group != p.cin)
    fail("group " + std::to_string(p.group) + " does not fit X " + ir::shapeToString(x) + " and W " +
         ir::shapeToString(wt));
  p.cg = p.cin / p.group;
  p.mg = p.cout / p.group;
  // Geometry exactly as the reference op derives it.
  const ops::OpContext ctx = ops::makeContext(g, n, {});
  const size_t spatial = x.size() - 2;
  const std::vector<int64_t> kernel(wt.begin() + 2, wt.end()), inSpatial(x.begin() + 2, x.end());
  p.w = ops::slidingWindow3(ctx, ops::readWindowAttrs(ctx, spatial, kernel), inSpatial);
  p.numInputs = static_cast<int>(n.inputs.size());
  p.epilogue = Epilogue::of(g, n);
  if (n.input(2) != ir::kNone) {
    const ir::Shape b = knownShape(g, n, 2, "B");
    if (b.size() != 1 || b[0] != p.cout) fail("B " + ir::shapeToString(b) + " must be [" + std::to_string(p.cout) + "]");
    p.hasBias = true;
  }
  const int64_t limit = std::numeric_limits<int32_t>::max();
  p.wideIndex = ir::numElements(x) >= limit || ir::numElements(wt) >= limit ||
                p.batch * p.cout * p.w.outSize() >= limit || p.kg() * p.batch * p.w.outSize() >= limit;
  return p;
}

// The window as conv_geometry.cuh's RammerConvGeometry.
std::string geometryArg(const ConvProblem& p) {
  const ops::Window3& w = p.w;
  std::string s = "RammerConvGeometry<" + llArg(p.cin) + ", " + llArg(p.cg);
  for (const auto* dims : {&w.in, &w.out, &w.kernel, &w.stride, &w.dilation, &w.padBegin})
    for (int64_t v : *dims) s += ", " + llArg(v);
  return s + ", " + llArg(p.batch * w.outSize()) + ">";
}

// The convolution's bias, output and epilogue (cuda/gemm_store.cuh).
GemmInstance convInstance(const ConvProblem& p) {
  GemmInstance g;
  g.wideIndex = p.wideIndex;
  g.output = "RammerConvOutput<" + llArg(p.w.outSize()) + ", " + llArg(p.cout) + ", " + llArg(p.mg) + ">";
  if (p.hasBias) {
    g.bias = "RammerBias<RammerIdentity, " + llArg(p.mg) + ", 1LL, 0LL>";
    g.c = "in2";
  }
  p.epilogue.instantiate(g);
  return g;
}

// ---- implicit GEMM ----

RKernel igemmKernel(const ConvProblem& p, ir::NodeId node, const GemmTile& tile, int64_t split = 1) {
  const TileGrid grid = makeTileGrid(p.group, p.mg, p.batch * p.w.outSize(), p.kg(), tile, split);
  RKernel k;
  k.name = grid.split > 1 ? fmt::format("conv_igemm_{}x{}_splitk{}", tile.tm, tile.tn, grid.split)
                          : fmt::format("conv_igemm_{}x{}", tile.tm, tile.tn);
  k.family = grid.split > 1 ? "conv_igemm_splitk" : "conv_igemm";
  k.params = {{"tile_m", tile.tm}, {"tile_n", tile.tn}, {"tile_k", tile.tk}, {"split_k", grid.split},
              {"M", grid.M},       {"N", grid.N},       {"K", grid.K},       {"groups", p.group},
              {"register_budget", tile.registerBudget()}};
  k.numRTasks = grid.numRTasks();
  k.block = Dim3{tile.tx(), tile.ty(), 1};
  k.regsEstimate = tile.registerBudget();
  k.syncCount = grid.syncCount(tile);
  k.flops = 2.0 * static_cast<double>(p.group) * static_cast<double>(grid.M) * static_cast<double>(grid.N) *
            static_cast<double>(grid.K);
  k.flops += static_cast<double>(p.batch * p.cout * p.w.outSize()) * p.epilogue.flopsPerOutput();
  k.bytes = tiledGemmBytes(grid, tile, p.epilogue.bytesPerOutput() / 4.0);
  k.zeroOutputsFirst = grid.split > 1;
  k.cudaFunction = fmt::format("rk_n{}_{}", node, k.name);
  // A = the group's weights [MG][KG] (contiguous along k), B = the im2col
  // columns (n = image x output position), one GEMM per group (`bb`). A 1x1
  // stride-1 window over one image is a plain GEMM: B is the group's input
  // channels as they lie, rows contiguous along n (copied by cp.async).
  const bool plainB = p.batch == 1 && p.w.isPointwise();
  const OperandLayout lb = plainB ? tile.mnLayout(tile.tn, true) : OperandLayout::MNMajor;
  k.sharedBytes = tile.sharedBytes(OperandLayout::KMajor, lb);
  GemmInstance g = convInstance(p);
  g.a = "in1";
  g.b = "in0";
  g.batch = "RammerBatchStrides<0LL, " + llArg(p.cg * (plainB ? p.w.outSize() : p.w.inSize())) + ">";
  // Split-K: outputs start at zero, the first K chunk alone adds the bias,
  // and the last chunk to arrive applies the epilogue to the finished sums.
  g.workspace = grid.split > 1 && p.epilogue.present();
  useCudaLibrary(k, kGemmRTask);
  useCudaLibrary(k, kConvGeometry);
  if (g.workspace) useSplitKEpilogue(k, grid, static_cast<double>(p.batch * p.cout * p.w.outSize()));
  const std::string operandB =
      plainB ? "RammerStrided<1LL, " + llArg(p.w.outSize()) + ">" : "RammerIm2col<" + geometryArg(p) + ">";
  k.cudaSource = cudaInstantiation(
      k.cudaFunction, static_cast<size_t>(p.numInputs), g.numOutputs(),
      g.call("rammer_gemm_rtask", {tileArg(tile, OperandLayout::KMajor, lb), gridArg(grid),
                                   "RammerGroupRows<" + llArg(p.mg) + ", " + llArg(p.kg()) + ">", operandB}));
  // GEMM row m of group g is output channel g * mg + m; column n is
  // position n % outSize of image n / outSize, so a tile's rows break into
  // runs at image boundaries.
  k.written = [p, grid, tile](int64_t rtask, std::vector<WrittenRun>& runs) {
    const TileGrid::Pos pos = grid.writtenBand(rtask, tile);
    const int64_t outSize = p.w.outSize();
    for (int64_t i = 0; i < pos.rows; ++i)
      for (int64_t j0 = 0; j0 < pos.cols;) {
        const int64_t n = pos.n0 + j0, img = n / outSize, q = n % outSize, run = std::min(pos.cols - j0, outSize - q);
        runs.push_back(WrittenRun{0, (img * p.cout + pos.batch * p.mg + pos.m0 + i) * outSize + q, run, 1});
        j0 += run;
      }
  };
  return k;
}

// ---- direct depthwise ----

// One rTask: `chunk` consecutive output positions of one (image, channel)
// plane, one position per thread at a time.
struct DepthwiseShape {
  int64_t chunk = 256, chunks = 1;
  int threads = 128;
};

DepthwiseShape depthwiseShape(const ConvProblem& p) {
  DepthwiseShape s;
  const int64_t outSize = p.w.outSize();
  s.chunk = std::min<int64_t>(256, ceilDiv64(outSize, 32) * 32);
  s.threads = static_cast<int>(std::min<int64_t>(128, s.chunk));
  s.chunks = ceilDiv64(outSize, s.chunk);
  return s;
}

RKernel depthwiseKernel(const ConvProblem& p, ir::NodeId node) {
  const DepthwiseShape s = depthwiseShape(p);
  RKernel k;
  k.name = "conv_depthwise";
  k.family = "conv_depthwise";
  k.params = {{"chunk", s.chunk}, {"multiplier", p.mg}, {"groups", p.group}, {"kernel_size", p.w.kernelSize()}};
  k.numRTasks = p.batch * p.cout * s.chunks;
  k.block = Dim3{s.threads, 1, 1};
  k.sharedBytes = 0;
  k.regsEstimate = 32;
  k.syncCount = 0;
  const double outputs = static_cast<double>(p.batch * p.cout * p.w.outSize());
  k.flops = 2.0 * outputs * static_cast<double>(p.w.kernelSize());
  // Input planes read about once (neighbouring windows hit the cache), the
  // weights once per rTask, every output written once.
  k.bytes = 4.0 * (static_cast<double>(p.batch * p.cin * p.w.inSize()) * static_cast<double>(p.mg) +
                   static_cast<double>(k.numRTasks * p.w.kernelSize()) + outputs);
  k.flops += outputs * p.epilogue.flopsPerOutput();
  k.bytes += outputs * p.epilogue.bytesPerOutput();
  k.cudaFunction = fmt::format("rk_n{}_{}", node, k.name);
  const GemmInstance g = convInstance(p);
  TemplateCall call;
  call.name = "rammer_conv_depthwise";
  call.templateArgs = {g.indexType(), std::to_string(s.threads), llArg(s.chunk), llArg(s.chunks), geometryArg(p),
                       llArg(p.cout), llArg(p.mg), boolArg(p.hasBias), g.epilogue};
  call.templateArgs.insert(call.templateArgs.end(), g.reads.begin(), g.reads.end());
  call.args = {"rtask_id", "tid", "smem", "in0", "in1", g.c, "out0"};
  call.args.insert(call.args.end(), g.extras.begin(), g.extras.end());
  call.locals = g.locals;
  call.restrictPointers = false;
  useCudaLibrary(k, kConvDepthwise);
  k.cudaSource = cudaInstantiation(k.cudaFunction, static_cast<size_t>(p.numInputs), 1, call);
  // rTask (image, output channel, chunk) writes one run of that plane.
  k.written = [s, plane = p.w.outSize()](int64_t rtask, std::vector<WrittenRun>& runs) {
    const int64_t chunk = rtask % s.chunks, nc = rtask / s.chunks;
    const int64_t q0 = chunk * s.chunk, q1 = std::min(plane, q0 + s.chunk);
    if (q0 < q1) runs.push_back(WrittenRun{0, nc * plane + q0, q1 - q0, 1});
  };
  return k;
}

}  // namespace

std::vector<RKernel> convKernels(const ir::Graph& graph, ir::NodeId node) {
  const ir::Node& n = graph.node(node);
  const bool plain = n.opType == "Conv" && (n.domain.empty() || n.domain == "ai.onnx");
  if (!plain && !(n.opType == "FusedConv" && n.domain == ops::kRammerDomain))
    fail("convKernels does not handle " + n.opType);
  const ConvProblem p = convProblem(graph, n);
  std::vector<RKernel> out;
  // One input channel per group: a direct loop beats a GEMM of depth kernel-size.
  if (p.cg == 1) out.push_back(depthwiseKernel(p, node));
  // The im2col loader's counters cost the registers the GEMM tiles spare:
  // at 64 registers these tiles spill (tests/core/runtime/
  // mainloop_kernels_test.cpp), so convolutions are offered at 128 (two
  // vEUs of 256 threads per SM), where none does.
  out.push_back(igemmKernel(p, node, GemmTile{128, 64, 8, 8, 4, 128}));
  out.push_back(igemmKernel(p, node, GemmTile{64, 64, 8, 4, 4, 128}));
  out.push_back(igemmKernel(p, node, GemmTile{32, 32, 8, 4, 4, 128}));
  // Deep K over few tiles (alexnet conv3-5, resnext29's stage 3): split-K,
  // chunks of >= 128, so that every SM gets rTasks.
  const GemmTile splitTile{64, 64, 8, 4, 4, 128};
  const int64_t tiles = p.group * ceilDiv64(p.mg, splitTile.tm) * ceilDiv64(p.batch * p.w.outSize(), splitTile.tn);
  if (const int64_t split = chooseSplitK(tiles, p.kg(), 128); split >= 2) {
    RKernel k = igemmKernel(p, node, splitTile, split);
    if (k.params.at("split_k") > 1) out.push_back(std::move(k));
  }
  return out;
}

}  // namespace rammer::kernels

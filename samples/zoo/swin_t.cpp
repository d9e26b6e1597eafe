#include "samples/zoo/swin_t.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "samples/builder/cnn_layers.h"
#include "samples/builder/transformer_layers.h"

namespace rammer::samples {

namespace {

constexpr int64_t kWindow = 7, kTokens = kWindow * kWindow;

using Ints = std::vector<int64_t>;

ir::ValueId reshape(ModelBuilder& b, const std::string& name, ir::ValueId x, const Ints& shape) {
  return b.op("Reshape", name, {x, b.ints(shape)});
}

ir::ValueId transpose(ModelBuilder& b, const std::string& name, ir::ValueId x, const Ints& perm) {
  return b.op("Transpose", name, {x}, attrs({{"perm", perm}}));
}

ir::ValueId slice(ModelBuilder& b, const std::string& name, ir::ValueId x, const Ints& starts, const Ints& ends,
                  const Ints& axes, const Ints& steps) {
  return b.op("Slice", name, {x, b.ints(starts), b.ints(ends), b.ints(axes), b.ints(steps)});
}

// torch.roll by `shift` along `axis` of extent n: Slice + Concat.
ir::ValueId roll(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t shift, int64_t axis, int64_t n) {
  const int64_t cut = ((n - shift) % n + n) % n;  // elements that move to the front start here
  const ir::ValueId tail = slice(b, name + ".tail", x, {cut}, {n}, {axis}, {1});
  const ir::ValueId head = slice(b, name + ".head", x, {0}, {cut}, {axis}, {1});
  return b.op("Concat", name, {tail, head}, attrs({{"axis", axis}}));
}

// [B, H, W, C] -> [B * nW, 49, C] and back.
ir::ValueId partition(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t side, int64_t c) {
  x = reshape(b, name + ".grid", x, {-1, side / kWindow, kWindow, side / kWindow, kWindow, c});
  x = transpose(b, name + ".order", x, {0, 1, 3, 2, 4, 5});
  return reshape(b, name, x, {-1, kTokens, c});
}

ir::ValueId unpartition(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t side, int64_t c) {
  x = reshape(b, name + ".grid", x, {-1, side / kWindow, side / kWindow, kWindow, kWindow, c});
  x = transpose(b, name + ".order", x, {0, 1, 3, 2, 4, 5});
  return reshape(b, name, x, {-1, side, side, c});
}

// The index into the (2w-1)^2 bias table for every (query, key) pair of a window.
ir::Tensor relativePositionIndex() {
  ir::Tensor t(ir::DType::Int64, {kTokens * kTokens});
  int64_t* d = t.data<int64_t>();
  for (int64_t p = 0; p < kTokens; ++p)
    for (int64_t q = 0; q < kTokens; ++q)
      d[p * kTokens + q] = (p / kWindow - q / kWindow + kWindow - 1) * (2 * kWindow - 1) + (p % kWindow - q % kWindow + kWindow - 1);
  return t;
}

// The shifted windows' mask [nW, 1, 49, 49]: 0 between tokens of the same
// region of the shifted image, -100 across regions. Built from constants as
// the export builds it: region ids scattered into a zero image, windowed,
// compared pairwise.
ir::ValueId shiftMask(ModelBuilder& b, const std::string& name, int64_t side, int64_t shift) {
  const int64_t n = side * side;
  ir::Tensor coords(ir::DType::Int64, {n, 2});
  ir::Tensor regions(ir::DType::Float32, {n});
  auto band = [&](int64_t v) { return v < side - kWindow ? 0 : v < side - shift ? 1 : 2; };
  for (int64_t h = 0; h < side; ++h)
    for (int64_t w = 0; w < side; ++w) {
      coords.data<int64_t>()[2 * (h * side + w)] = h;
      coords.data<int64_t>()[2 * (h * side + w) + 1] = w;
      regions.data<float>()[h * side + w] = static_cast<float>(band(h) * 3 + band(w));
    }
  ir::Attributes zero;
  zero.set("value", ir::Tensor::fromVector<float>({1}, {0.0f}));
  ir::ValueId img = b.op("ConstantOfShape", name + ".zeros", {b.ints({side, side})}, zero);
  img = b.op("ScatterND", name + ".regions",
             {img, b.constant(name + ".coords", std::move(coords)), b.constant(name + ".ids", std::move(regions))});
  img = reshape(b, name + ".grid", img, {side / kWindow, kWindow, side / kWindow, kWindow});
  img = transpose(b, name + ".order", img, {0, 2, 1, 3});
  const ir::ValueId windows = reshape(b, name + ".windows", img, {-1, kTokens});
  const ir::ValueId diff = b.op("Sub", name + ".diff",
                                {b.op("Unsqueeze", name + ".keys", {windows, b.ints({1})}),
                                 b.op("Unsqueeze", name + ".queries", {windows, b.ints({2})})});
  const ir::ValueId same = b.op("Equal", name + ".same", {diff, b.constant(name + ".zero", ir::Tensor::scalar<float>(0.0f))});
  const ir::ValueId mask = b.op("Where", name + ".values",
                                {same, b.constant(name + ".pass", ir::Tensor::scalar<float>(0.0f)),
                                 b.constant(name + ".block", ir::Tensor::scalar<float>(-100.0f))});
  return b.op("Unsqueeze", name, {mask, b.ints({1})});
}

// Window attention on [B * nW, 49, C] with the relative position bias and,
// for shifted blocks, the mask.
ir::ValueId windowAttention(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t c, int64_t heads,
                            int64_t windows, std::optional<ir::ValueId> mask) {
  const int64_t dh = c / heads;
  auto split = [&](const std::string& part, const Ints& perm) {
    const ir::ValueId p = linear(b, name + "." + part, x, c);
    return transpose(b, name + "." + part + ".heads", reshape(b, name + "." + part + ".split", p, {0, kTokens, heads, dh}), perm);
  };
  const ir::ValueId q = split("query", {0, 2, 1, 3});
  const ir::ValueId kT = split("key", {0, 2, 3, 1});
  const ir::ValueId v = split("value", {0, 2, 1, 3});
  ir::ValueId scores = b.op("MatMul", name + ".scores", {q, kT});
  scores = b.op("Mul", name + ".scaled",
                {scores, b.constant(name + ".scale", ir::Tensor::scalar<float>(1.0f / std::sqrt(static_cast<float>(dh))))});
  // Bias [heads, 49, 49] from the table [(2w-1)^2, heads].
  const ir::ValueId table =
      b.constant(name + ".relative_position_bias_table", b.rng().uniformTensor({(2 * kWindow - 1) * (2 * kWindow - 1), heads}, 0.02f));
  ir::ValueId bias = b.op("Gather", name + ".bias.gather", {table, b.constant(name + ".relative_position_index", relativePositionIndex())},
                          attrs({{"axis", int64_t{0}}}));
  bias = transpose(b, name + ".bias", reshape(b, name + ".bias.square", bias, {kTokens, kTokens, heads}), {2, 0, 1});
  scores = b.op("Add", name + ".biased", {scores, bias});
  if (mask) {
    scores = reshape(b, name + ".per_image", scores, {-1, windows, heads, kTokens, kTokens});
    scores = reshape(b, name + ".masked", b.op("Add", name + ".mask", {scores, *mask}), {-1, heads, kTokens, kTokens});
  }
  const ir::ValueId p = b.op("Softmax", name + ".softmax", {scores}, attrs({{"axis", int64_t{-1}}}));
  ir::ValueId out = transpose(b, name + ".merge", b.op("MatMul", name + ".context", {p, v}), {0, 2, 1, 3});
  return linear(b, name + ".proj", reshape(b, name + ".flat", out, {0, kTokens, c}), c);
}

// One block on [B, side*side, C].
ir::ValueId swinBlock(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t side, int64_t c, int64_t heads,
                      int64_t shift, std::optional<ir::ValueId> mask) {
  const int64_t windows = (side / kWindow) * (side / kWindow);
  ir::ValueId y = reshape(b, name + ".image", layerNorm(b, name + ".norm1", x), {-1, side, side, c});
  if (shift) y = roll(b, name + ".shift.w", roll(b, name + ".shift.h", y, -shift, 1, side), -shift, 2, side);
  y = windowAttention(b, name + ".attn", partition(b, name + ".windows", y, side, c), c, heads, windows,
                      shift ? mask : std::nullopt);
  y = unpartition(b, name + ".unwindows", y, side, c);
  if (shift) y = roll(b, name + ".unshift.w", roll(b, name + ".unshift.h", y, shift, 1, side), shift, 2, side);
  x = b.op("Add", name + ".attn.residual", {x, reshape(b, name + ".tokens", y, {-1, side * side, c})});
  const TransformerShape s{side * side, c, heads, 4 * c};
  return b.op("Add", name + ".mlp.residual", {x, feedForward(b, name + ".mlp", layerNorm(b, name + ".norm2", x), s, false)});
}

// [B, side*side, C] -> [B, side*side/4, 2C]: 2x2 neighbours concatenated,
// normalized, projected without bias.
ir::ValueId patchMerging(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t side, int64_t c) {
  const ir::ValueId img = reshape(b, name + ".image", x, {-1, side, side, c});
  std::vector<ir::ValueId> parts;
  for (const auto& [h, w] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {1, 0}, {0, 1}, {1, 1}})
    parts.push_back(slice(b, name + ".x" + std::to_string(parts.size()), img, {h, w}, {side, side}, {1, 2}, {2, 2}));
  ir::ValueId y = b.op("Concat", name + ".cat", parts, attrs({{"axis", int64_t{-1}}}));
  y = layerNorm(b, name + ".norm", reshape(b, name + ".tokens", y, {-1, side * side / 4, 4 * c}));
  const ir::ValueId w = b.constant(name + ".reduction.weight",
                                   b.rng().uniformTensor({4 * c, 2 * c}, 1.0f / std::sqrt(static_cast<float>(4 * c))));
  return b.op("MatMul", name + ".reduction", {y, w});
}

}  // namespace

ir::Graph buildSwinT(const SampleConfig& config) {
  ModelBuilder b("swin_t", kTransformerOpset, config.seed);
  const int64_t dims[] = {96, 192, 384, 768}, depths[] = {2, 2, 6, 2}, heads[] = {3, 6, 12, 24};
  const ir::ValueId image = b.input("input", {config.batch, 3, 224, 224}, {kBatchDim, "", "", ""});
  ConvSpec patch = ConvSpec::square(dims[0], 4, 4);
  patch.bias = true;
  ir::ValueId x = conv(b, "patch_embed.proj", image, patch);
  x = transpose(b, "patch_embed.tokens", reshape(b, "patch_embed.flatten", x, {0, dims[0], 56 * 56}), {0, 2, 1});
  x = layerNorm(b, "patch_embed.norm", x);
  int64_t side = 56;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t c = dims[stage];
    // Shifting by half a window only when the image is wider than one window.
    const int64_t shift = side > kWindow ? kWindow / 2 : 0;
    std::optional<ir::ValueId> mask;
    if (shift) mask = shiftMask(b, "layers." + std::to_string(stage) + ".attn_mask", side, shift);
    const int64_t depth = std::min<int64_t>(depths[stage], config.transformerLayers);
    for (int64_t k = 0; k < depth; ++k)
      x = swinBlock(b, "layers." + std::to_string(stage) + ".blocks." + std::to_string(k), x, side, c, heads[stage],
                    k % 2 ? shift : 0, mask);
    if (stage < 3) {
      x = patchMerging(b, "layers." + std::to_string(stage) + ".downsample", x, side, c);
      side /= 2;
    }
  }
  x = layerNorm(b, "norm", x);
  x = b.op("ReduceMean", "avgpool", {x}, attrs({{"axes", Ints{1}}, {"keepdims", int64_t{0}}}));
  b.output(linear(b, "head", x, 1000), 0);
  return b.take();
}

}  // namespace rammer::samples

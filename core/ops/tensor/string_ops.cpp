// StringNormalizer: drops stopwords from a [C] or [1, C] string tensor and
// optionally changes the case of what remains (ASCII only; the locale
// attribute is accepted but only its default behaviour is implemented).
#include <algorithm>

#include "core/ops/tensor/tensor_families.h"
#include "core/ops/tensor_util.h"

namespace rammer::ops::tensor {

namespace {

std::string asciiLower(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return s;
}

std::string asciiUpper(std::string s) {
  for (char& c : s) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  return s;
}

std::string caseAction(const OpContext& ctx) {
  std::string action = ctx.attrs().getString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    ctx.fail("unsupported case_change_action '" + action + "'");
  return action;
}

ir::TensorType inferStringNormalizer(const OpContext& ctx) {
  ctx.expectDType(0, {ir::DType::String});
  caseAction(ctx);
  const ir::TensorType& in = ctx.type(0);
  if (!in.rankKnown) return in;
  const bool twoDim = in.shape.size() == 2;
  if (!(in.shape.size() == 1 || (twoDim && (in.shape[0] == 1 || in.shape[0] == ir::kUnknownDim))))
    ctx.fail("input must have shape [C] or [1, C], got " + ir::shapeToString(in.shape));
  if (ctx.attrs().getStrings("stopwords").empty()) return in;
  // How many strings survive depends on the data.
  return twoDim ? ir::TensorType{in.dtype, {1, ir::kUnknownDim}, true} : unknownDims(in.dtype, 1);
}

std::vector<ir::Tensor> computeStringNormalizer(const OpContext& ctx) {
  inferStringNormalizer(ctx);
  const ir::Tensor& in = ctx.tensor(0);
  const std::string action = caseAction(ctx);
  const bool caseSensitive = ctx.attrs().getInt("is_case_sensitive", 0) != 0;
  std::vector<std::string> stopwords = ctx.attrs().getStrings("stopwords");
  if (!caseSensitive)
    for (auto& w : stopwords) w = asciiLower(w);

  std::vector<std::string> kept;
  for (const std::string& s : in.strings()) {
    const std::string key = caseSensitive ? s : asciiLower(s);
    if (std::find(stopwords.begin(), stopwords.end(), key) != stopwords.end()) continue;
    kept.push_back(action == "LOWER" ? asciiLower(s) : action == "UPPER" ? asciiUpper(s) : s);
  }
  // Everything dropped: one empty string, per the spec.
  if (kept.empty()) kept.emplace_back();
  const auto c = static_cast<int64_t>(kept.size());
  ir::Tensor out(ir::DType::String, in.rank() == 2 ? ir::Shape{1, c} : ir::Shape{c});
  out.strings() = std::move(kept);
  return {std::move(out)};
}

}  // namespace

void registerStringOps(OpRegistry& r) {
  r.add(defineOp("StringNormalizer", OpCategory::Other, inferStringNormalizer, computeStringNormalizer));
}

}  // namespace rammer::ops::tensor

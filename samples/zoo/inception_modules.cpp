#include "samples/zoo/inception_modules.h"

namespace rammer::samples {

namespace {

// Square kernel, stride 1, "same" padding: the common unit.
ir::ValueId unit(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out, int64_t k) {
  return basicConv2d(b, name, x, out, k, k, 1, k / 2, k / 2);
}

// torchvision's F.avg_pool2d(x, 3, stride=1, padding=1) counts the zero
// padding (count_include_pad), then a 1x1 unit.
ir::ValueId poolBranch(ModelBuilder& b, const std::string& prefix, ir::ValueId x, int64_t out) {
  const ir::ValueId pooled = avgPool(b, prefix + "branch_pool.avgpool", x, 3, 1, Pads::all(1), true);
  return unit(b, prefix + "branch_pool", pooled, out, 1);
}

}  // namespace

ir::ValueId basicConv2d(ModelBuilder& b, const std::string& name, ir::ValueId x, int64_t out, int64_t kh, int64_t kw,
                        int64_t stride, int64_t padH, int64_t padW) {
  const ConvSpec spec{out, kh, kw, stride, stride, Pads{padH, padW, padH, padW}};
  return convBnRelu(b, name, x, spec, kInceptionBnEps);
}

ir::ValueId inceptionA(ModelBuilder& b, const std::string& prefix, ir::ValueId x, int64_t poolFeatures) {
  const ir::ValueId branch1 = unit(b, prefix + "branch1x1", x, 64, 1);
  const ir::ValueId branch5a = unit(b, prefix + "branch5x5_1", x, 48, 1);
  const ir::ValueId branch5 = unit(b, prefix + "branch5x5_2", branch5a, 64, 5);
  ir::ValueId branch3 = unit(b, prefix + "branch3x3dbl_1", x, 64, 1);
  branch3 = unit(b, prefix + "branch3x3dbl_2", branch3, 96, 3);
  branch3 = unit(b, prefix + "branch3x3dbl_3", branch3, 96, 3);
  const ir::ValueId branchPool = poolBranch(b, prefix, x, poolFeatures);
  return concat(b, prefix + "concat", {branch1, branch5, branch3, branchPool});
}

ir::ValueId inceptionB(ModelBuilder& b, const std::string& prefix, ir::ValueId x) {
  const ir::ValueId branch3 = basicConv2d(b, prefix + "branch3x3", x, 384, 3, 3, 2);
  ir::ValueId dbl = unit(b, prefix + "branch3x3dbl_1", x, 64, 1);
  dbl = unit(b, prefix + "branch3x3dbl_2", dbl, 96, 3);
  dbl = basicConv2d(b, prefix + "branch3x3dbl_3", dbl, 96, 3, 3, 2);
  const ir::ValueId pool = maxPool(b, prefix + "branch_pool", x, 3, 2);
  return concat(b, prefix + "concat", {branch3, dbl, pool});
}

ir::ValueId inceptionC(ModelBuilder& b, const std::string& prefix, ir::ValueId x, int64_t c7) {
  auto row = [&](const std::string& name, ir::ValueId in, int64_t out) {  // 1x7
    return basicConv2d(b, prefix + name, in, out, 1, 7, 1, 0, 3);
  };
  auto col = [&](const std::string& name, ir::ValueId in, int64_t out) {  // 7x1
    return basicConv2d(b, prefix + name, in, out, 7, 1, 1, 3, 0);
  };
  const ir::ValueId branch1 = unit(b, prefix + "branch1x1", x, 192, 1);
  ir::ValueId branch7 = unit(b, prefix + "branch7x7_1", x, c7, 1);
  branch7 = row("branch7x7_2", branch7, c7);
  branch7 = col("branch7x7_3", branch7, 192);
  ir::ValueId dbl = unit(b, prefix + "branch7x7dbl_1", x, c7, 1);
  dbl = col("branch7x7dbl_2", dbl, c7);
  dbl = row("branch7x7dbl_3", dbl, c7);
  dbl = col("branch7x7dbl_4", dbl, c7);
  dbl = row("branch7x7dbl_5", dbl, 192);
  const ir::ValueId branchPool = poolBranch(b, prefix, x, 192);
  return concat(b, prefix + "concat", {branch1, branch7, dbl, branchPool});
}

ir::ValueId inceptionD(ModelBuilder& b, const std::string& prefix, ir::ValueId x) {
  ir::ValueId branch3 = unit(b, prefix + "branch3x3_1", x, 192, 1);
  branch3 = basicConv2d(b, prefix + "branch3x3_2", branch3, 320, 3, 3, 2);
  ir::ValueId branch7 = unit(b, prefix + "branch7x7x3_1", x, 192, 1);
  branch7 = basicConv2d(b, prefix + "branch7x7x3_2", branch7, 192, 1, 7, 1, 0, 3);
  branch7 = basicConv2d(b, prefix + "branch7x7x3_3", branch7, 192, 7, 1, 1, 3, 0);
  branch7 = basicConv2d(b, prefix + "branch7x7x3_4", branch7, 192, 3, 3, 2);
  const ir::ValueId pool = maxPool(b, prefix + "branch_pool", x, 3, 2);
  return concat(b, prefix + "concat", {branch3, branch7, pool});
}

ir::ValueId inceptionE(ModelBuilder& b, const std::string& prefix, ir::ValueId x) {
  // A 1x3 and a 3x1 unit on the same input, concatenated.
  auto split = [&](const std::string& name, ir::ValueId in) {
    const ir::ValueId a = basicConv2d(b, prefix + name + "a", in, 384, 1, 3, 1, 0, 1);
    const ir::ValueId c = basicConv2d(b, prefix + name + "b", in, 384, 3, 1, 1, 1, 0);
    return std::pair{a, c};
  };
  const ir::ValueId branch1 = unit(b, prefix + "branch1x1", x, 320, 1);
  const ir::ValueId branch3in = unit(b, prefix + "branch3x3_1", x, 384, 1);
  const auto [b3a, b3b] = split("branch3x3_2", branch3in);
  const ir::ValueId branch3 = concat(b, prefix + "branch3x3.concat", {b3a, b3b});
  ir::ValueId dblIn = unit(b, prefix + "branch3x3dbl_1", x, 448, 1);
  dblIn = unit(b, prefix + "branch3x3dbl_2", dblIn, 384, 3);
  const auto [dba, dbb] = split("branch3x3dbl_3", dblIn);
  const ir::ValueId dbl = concat(b, prefix + "branch3x3dbl.concat", {dba, dbb});
  const ir::ValueId branchPool = poolBranch(b, prefix, x, 192);
  return concat(b, prefix + "concat", {branch1, branch3, dbl, branchPool});
}

}  // namespace rammer::samples

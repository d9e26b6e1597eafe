// ScatterND rKernels (issue #16 item 3): constant index tuples baked into a
// per-slice table, checked element by element against the reference.
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::checkCandidates;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;

namespace {

using Ints = std::vector<int64_t>;

ir::Tensor tuples(int64_t count, int64_t k, const Ints& v) { return ir::Tensor::fromVector<int64_t>({count, k}, v); }

}  // namespace

// Whole rows (k = 1), single elements (k = rank), and repeated tuples, where
// the last update wins in the reference and in every rKernel.
TEST(ScatterKernels, WritesUpdateSlicesOverTheData) {
  struct Case {
    Ints updates;
    int64_t count, k;
    Ints idx;
  };
  const Case cases[] = {
      {{2, 3, 5}, 2, 1, {1, -1}},
      {{5, 5}, 5, 2, {0, 1, 2, 2, -1, 0, 0, 1, 3, -3}},
      {{4}, 4, 3, {0, 0, 0, 3, 2, 4, 0, 0, 0, 1, 1, 1}},
  };
  for (const Case& c : cases) {
    GraphBuilder b;
    b.output(b.op("ScatterND", "scatter",
                  {b.input("data", {4, 3, 5}), b.constant("idx", tuples(c.count, c.k, c.idx)), b.input("updates", c.updates)}));
    ASSERT_TRUE(b.infer().empty());
    size_t candidates = 0;
    checkCandidates(b.graph(), lastNode(b.graph()), 0, &candidates, 0);
    EXPECT_GE(candidates, 1u);
  }
}

TEST(ScatterKernels, LargeOutputsGetOneCandidatePerChunkSize) {
  GraphBuilder b;
  b.output(b.op("ScatterND", "scatter",
                {b.input("data", {64, 128}), b.constant("idx", tuples(2, 1, {5, 60})), b.input("updates", {2, 128})}));
  ASSERT_TRUE(b.infer().empty());
  size_t candidates = 0;
  checkCandidates(b.graph(), lastNode(b.graph()), 0, &candidates, 0);
  EXPECT_EQ(candidates, 2u);
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_TRUE(k.ok()) << k.errorText();
  // scatter.cuh's body over slices of 128, reading the baked table.
  const kernels::RKernel& c = k->candidates[0];
  EXPECT_NE(c.cudaSource.find("rammer_scatter_table<int, 256, 1024LL, 8192LL, 128LL>(rtask_id, tid, smem, in0, in2, out0, " +
                              c.cudaFunction + "_src);"),
            std::string::npos)
      << c.cudaSource;
}

TEST(ScatterKernels, RefusesWhatATableCannotSay) {
  {
    GraphBuilder b;
    b.output(b.op("ScatterND", "scatter",
                  {b.input("data", {4, 3}), b.constant("idx", tuples(1, 1, {2})), b.input("updates", {1, 3})},
                  attrs({{"reduction", std::string("add")}})));
    ASSERT_TRUE(b.infer().empty());
    auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
    ASSERT_FALSE(k.ok());
    EXPECT_NE(k.errorText().find("reduction 'add' has no rKernel"), std::string::npos) << k.errorText();
    EXPECT_NE(k.errorText().find("'scatter'"), std::string::npos) << k.errorText();
  }
  {
    GraphBuilder b;
    b.output(b.op("ScatterND", "scatter",
                  {b.input("data", {4, 3}, ir::DType::Float64), b.constant("idx", tuples(1, 1, {2})),
                   b.input("updates", {1, 3}, ir::DType::Float64)}));
    ASSERT_TRUE(b.infer().empty());
    auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
    ASSERT_FALSE(k.ok());
    EXPECT_NE(k.errorText().find("float64"), std::string::npos) << k.errorText();
  }
}

// Indices computed at run time (issue #30 item 2): every output element
// finds the last tuple naming its slice, so repeated and negative tuples
// land as in the reference, on integer data too.
TEST(ScatterKernels, RunTimeIndicesResolveRepeatsLikeTheReference) {
  for (ir::DType t : {ir::DType::Float32, ir::DType::Int64}) {
    GraphBuilder b;
    b.output(b.op("ScatterND", "scatter",
                  {b.input("data", {4, 3, 5}, t), b.input("idx", {5, 2}, ir::DType::Int64), b.input("updates", {5, 5}, t)}));
    ASSERT_TRUE(b.infer().empty());
    const ir::Tensor idx = tuples(5, 2, {0, 1, 2, 2, -1, 0, 0, 1, 3, -3});  // (0,1) twice: the second wins
    checkCandidates(b.graph(), lastNode(b.graph()), 0, nullptr, 0, {{}, idx});
  }
}

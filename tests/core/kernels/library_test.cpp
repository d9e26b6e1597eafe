// The dispatcher: views, errors for unsupported ops, coverage of the sample
// CNN's optimized graph, and that generated CUDA compiles with nvcc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/kernels/cuda_library.h"
#include "core/kernels/kernel_library.h"
#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "tests/core/kernels/kernel_check.h"

using namespace rammer;
using rammer::testing::attrs;
using rammer::testing::GraphBuilder;
using rammer::testing::lastNode;
using rammer::testing::randomTensor;

TEST(KernelLibrary, ViewsHaveNoRTasks) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3, 4});
  auto r = b.op("Reshape", "reshape", {x, b.constant("shape", ir::Tensor::fromVector<int64_t>({2}, {6, 4}))});
  auto f = b.op("Flatten", "flatten", {r});
  auto i = b.op("Identity", "id", {f});
  b.output(i);
  ASSERT_TRUE(b.infer().empty());
  for (ir::NodeId n = 0; n < 3; ++n) {
    auto k = kernels::kernelsFor(b.graph(), n);
    ASSERT_TRUE(k.ok()) << k.errorText();
    EXPECT_TRUE(k->isView);
    EXPECT_TRUE(k->candidates.empty());
    EXPECT_EQ(k->node, n);
  }
}

TEST(KernelLibrary, UnsupportedOpNamesNodeAndOp) {
  GraphBuilder b;
  b.output(b.op("TopK", "my_topk", {b.input("x", {4, 5}), b.constant("k", ir::Tensor::fromVector<int64_t>({1}, {2}))}));
  b.infer();
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.errorText().find("TopK"), std::string::npos) << k.errorText();
  EXPECT_NE(k.errorText().find("my_topk"), std::string::npos) << k.errorText();
}

TEST(KernelLibrary, UnknownDimsAreAnErrorNotACrash) {
  GraphBuilder b;
  b.output(b.op("Softmax", "sm", {b.input("x", {ir::kUnknownDim, 10})}));
  ASSERT_TRUE(b.infer().empty());
  auto k = kernels::kernelsFor(b.graph(), lastNode(b.graph()));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.errorText().find("sm"), std::string::npos) << k.errorText();
  EXPECT_NE(k.errorText().find("dim"), std::string::npos) << k.errorText();
}

TEST(KernelLibrary, SupportedOpTypesListFamiliesAndViews) {
  const auto types = kernels::supportedOpTypes();
  for (const char* t : {"Conv", "MatMul", "Gemm", "com.rammer::FusedElementwise", "com.rammer::LstmCell", "MaxPool",
                        "Softmax", "ReduceMean", "Concat", "Reshape", "LayerNormalization", "com.rammer::FusedGroup"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
}

TEST(KernelLibrary, SampleCnnOptimizedGraphIsCovered) {
  onnx_import::ImportOptions opt;
  opt.batch = 1;
  auto g = onnx_import::importModel(std::filesystem::path(RAMMER_SOURCE_DIR) / "samples/models/sample_cnn.onnx", opt);
  ASSERT_TRUE(g.ok()) << g.errorText();
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(*g, ctx);
  ASSERT_TRUE(records.ok()) << records.errorText();
  auto order = g->topologicalOrder();
  ASSERT_TRUE(order.ok());
  size_t kernelsSeen = 0;
  for (ir::NodeId n : *order) {
    auto k = kernels::kernelsFor(*g, n);
    ASSERT_TRUE(k.ok()) << k.errorText();
    EXPECT_TRUE(k->isView || !k->candidates.empty()) << g->node(n).opType;
    for (const kernels::RKernel& c : k->candidates) {
      EXPECT_GT(c.numRTasks, 0) << c.name;
      EXPECT_FALSE(c.cudaSource.empty()) << c.name;
      ++kernelsSeen;
    }
  }
  EXPECT_GT(kernelsSeen, 4u);
}

namespace {

// Appends every candidate of `node` wrapped in a __global__ launcher, after
// the core/kernels/cuda/ files it instantiates that `cu` lacks yet.
void appendCuda(const ir::Graph& g, ir::NodeId node, std::string& cu, std::set<std::string>& libraries) {
  auto k = kernels::kernelsFor(g, node);
  ASSERT_TRUE(k.ok()) << k.errorText();
  const ir::Node& n = g.node(node);
  for (const kernels::RKernel& c : k->candidates) {
    for (const std::string& lib : c.cudaLibraries)
      if (libraries.insert(lib).second) cu += std::string(kernels::cudaLibrary(lib)) + "\n";
    cu += c.cudaSource + "\n";
    std::string params, args;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      params += ", const float* in" + std::to_string(i);
      args += ", in" + std::to_string(i);
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      params += ", float* out" + std::to_string(i);
      args += ", out" + std::to_string(i);
    }
    cu += "__global__ void launch_" + c.cudaFunction + "(int dummy" + params + ") {\n  extern __shared__ float smem[];\n  " +
          c.cudaFunction + "(blockIdx.x, threadIdx.x, smem" + args + ");\n}\n";
  }
}

}  // namespace

TEST(KernelLibrary, GeneratedCudaCompilesWithNvcc) {
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) GTEST_SKIP() << "nvcc not found";
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 9, 9});
  auto e = b.op("FusedElementwise", "fused", {x, b.input("y", {4, 1, 1})}, attrs({{"expr", std::string("(relu (add x0 x1))")}}));
  b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
  auto mp = b.op("MaxPool", "mp", {e}, attrs({{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  auto ap = b.op("AveragePool", "ap", {mp}, attrs({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"count_include_pad", int64_t{1}}, {"pads", std::vector<int64_t>{1, 1, 0, 0}}}));
  auto gp = b.op("GlobalAveragePool", "gap", {ap});
  auto sm = b.op("Softmax", "sm", {ap}, attrs({{"axis", int64_t{1}}}));
  auto rd = b.op("ReduceMax", "rmax", {sm}, attrs({{"axes", std::vector<int64_t>{2, 3}}}));
  auto pad = b.op("Pad", "pad", {ap, b.constant("pads", ir::Tensor::fromVector<int64_t>({8}, {0, 0, 1, 2, 0, 0, 2, 1}))},
                  attrs({{"mode", std::string("reflect")}}));
  auto ga = b.op("Gather", "gather", {pad, b.constant("idx", ir::Tensor::fromVector<int64_t>({2}, {3, 0}))},
                 attrs({{"axis", int64_t{1}}}));
  auto cat = b.op("Concat", "cat", {ga, ga}, attrs({{"axis", int64_t{0}}}));
  auto lsm = b.op("LogSoftmax", "lsm", {b.input("z", {2, 700})});
  b.node("LstmCell", "cell", {b.input("xw", {2, 12}), b.input("hr", {2, 12}), ir::kNone, b.input("c", {2, 3})},
         attrs({{"hidden_size", int64_t{3}}, {"clip", 2.0f}}), 2);
  b.graph().node(lastNode(b.graph())).domain = ops::kRammerDomain;
  for (auto v : {gp, rd, cat, lsm}) b.output(v);
  ASSERT_TRUE(b.infer().empty());
  std::string cu = "#include <cmath>\n";
  std::set<std::string> libraries;
  for (ir::NodeId n = 0; n < static_cast<ir::NodeId>(b.graph().numNodeSlots()); ++n)
    appendCuda(b.graph(), n, cu, libraries);
  EXPECT_EQ(libraries.count(kernels::kSoftmax), 1u);  // the template bodies are in the file
  const std::filesystem::path dir = std::filesystem::path(RAMMER_BINARY_DIR) / "kernel_library_nvcc";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kernels.cu") << cu;
  const std::string cmd = std::string(nvcc) + " -arch=sm_90 -c -o " + (dir / "kernels.o").string() + " " +
                          (dir / "kernels.cu").string() + " > " + (dir / "nvcc.log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "nvcc.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << text;
}

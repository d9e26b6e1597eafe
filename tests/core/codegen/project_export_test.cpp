// The exported project: its manifest describes exactly the generated
// buffers and launches, every data file holds the right bytes (weights from
// the graph, the given inputs and expected outputs, the table words), and
// the CUDA project for sample_cnn builds with `nvcc -O2 -arch=sm_90 -o prog
// *.cu` (linking too; no GPU here to run it).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "core/codegen/code_generator.h"
#include "core/codegen/project_export.h"
#include "core/exec/reference_executor.h"
#include "tests/core/codegen/codegen_fixtures.h"

namespace rammer::codegen {
namespace {

namespace fs = std::filesystem;

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::vector<std::string>> records(const std::string& manifest, const std::string& key) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(manifest);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::vector<std::string> fields;
    for (std::string w; f >> w;) fields.push_back(w);
    if (!fields.empty() && fields[0] == key) out.push_back(fields);
  }
  return out;
}

struct Exported {
  ir::Graph graph;
  GeneratedProgram program;
  ExportData data;
  fs::path dir;
};

Exported exportSample(const std::string& policy, Target target, const std::string& dirName) {
  Exported e;
  e.graph = testing::optimizedSampleGraph("sample_cnn");
  auto gp = generateProgram(testing::planSample(e.graph, policy), e.graph, CodegenOptions{target});
  EXPECT_TRUE(gp) << gp.errorText();
  e.program = std::move(gp).value();
  // A recognisable input: element i is i / 1000.
  const ir::Value& in = e.graph.value(e.graph.inputs()[0]);
  ir::Tensor x(ir::DType::Float32, in.type.shape);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = static_cast<float>(i) / 1000.0f;
  e.data = {"sample_cnn.onnx", policy, "h100", {x}, {}};
  auto ref = exec::runReference(e.graph, e.data.inputs);
  EXPECT_TRUE(ref) << ref.errorText();
  e.data.expected = std::move(ref).value();
  e.dir = fs::path(RAMMER_BINARY_DIR) / "tests/codegen_work/export" / dirName;
  fs::remove_all(e.dir);
  auto written = writeProject(e.dir, e.program, e.graph, e.data);
  EXPECT_TRUE(written) << written.errorText();
  return e;
}

TEST(ProjectExport, ManifestAndDataMatchTheProgram) {
  const Exported e = exportSample("wavefront", Target::Cuda, "sample_cnn_manifest");
  for (const char* f : {"kernels.cu", "main.cu", "manifest.txt", "CMakeLists.txt", "README.txt"})
    EXPECT_TRUE(fs::exists(e.dir / f)) << f;
  const std::string manifest = readAll(e.dir / "manifest.txt");

  const auto bufs = records(manifest, "buffer");
  ASSERT_EQ(bufs.size(), e.program.buffers.size());
  for (size_t i = 0; i < bufs.size(); ++i) {
    const BufferInfo& b = e.program.buffers[i];
    ASSERT_GE(bufs[i].size(), 7u);
    EXPECT_EQ(bufs[i][1], std::to_string(i));
    EXPECT_EQ(bufs[i][3], std::to_string(b.numel));
    EXPECT_EQ(bufs[i][4], std::to_string(b.storage));
    EXPECT_EQ(bufs[i][6], b.name);
    const std::string file = bufs[i][5];
    if (file == "-") {
      EXPECT_TRUE(b.kind == BufferInfo::Kind::Intermediate || b.kind == BufferInfo::Kind::Output ||
                  b.storage != static_cast<int32_t>(i))
          << b.name;
      continue;
    }
    const std::string bytes = readAll(e.dir / file);
    ASSERT_EQ(static_cast<int64_t>(bytes.size()), b.numel * 4) << file;
    const void* want = nullptr;
    if (b.kind == BufferInfo::Kind::Weight) want = e.graph.value(b.value).constant->raw();
    else if (b.kind == BufferInfo::Kind::Input) want = e.data.inputs[static_cast<size_t>(b.inputIndex)].raw();
    else if (b.kind == BufferInfo::Kind::Table) want = e.program.tableWords.data();
    ASSERT_NE(want, nullptr) << b.name;
    EXPECT_EQ(std::memcmp(bytes.data(), want, bytes.size()), 0) << file;
  }

  const auto launches = records(manifest, "launch");
  ASSERT_EQ(launches.size(), e.program.launches.size());
  const KernelLaunch& l = e.program.launches[0];
  EXPECT_EQ(launches[0], (std::vector<std::string>{"launch", "0", "0", std::to_string(l.gridBlocks),
                                                   std::to_string(l.blockThreads), std::to_string(l.dynamicSharedBytes),
                                                   "1", std::to_string(l.veusPerSM), "0"}));

  const auto outs = records(manifest, "output");
  ASSERT_EQ(outs.size(), e.graph.outputs().size());
  const std::string expected = readAll(e.dir / outs[0][2]);
  ASSERT_EQ(expected.size(), e.data.expected[0].byteSize());
  EXPECT_EQ(std::memcmp(expected.data(), e.data.expected[0].raw(), expected.size()), 0);
  EXPECT_EQ(e.program.buffers[static_cast<size_t>(std::stoi(outs[0][1]))].value, e.graph.outputs()[0]);

  // The kernel table names each distinct kernel once.
  const std::string kernels = readAll(e.dir / "kernels.cu");
  EXPECT_NE(kernels.find("(const void*)rammer_p0,"), std::string::npos);
  EXPECT_NE(kernels.find("rammer_kernel_count = 1;"), std::string::npos);
}

TEST(ProjectExport, SequentialLaunchesShareKernels) {
  const Exported e = exportSample("sequential", Target::Cuda, "sample_cnn_sequential");
  const std::string manifest = readAll(e.dir / "manifest.txt");
  const auto launches = records(manifest, "launch");
  ASSERT_EQ(launches.size(), e.program.launches.size());
  const std::vector<std::string> names = distinctKernels(e.program);
  for (size_t k = 0; k < launches.size(); ++k) {
    const size_t kernel = std::stoul(launches[k][2]);
    ASSERT_LT(kernel, names.size());
    EXPECT_EQ(names[kernel], e.program.launches[k].kernel);
    EXPECT_EQ(launches[k][6], "0");  // ordinary launch
  }
  EXPECT_LE(static_cast<int64_t>(names.size()), e.program.numFunctions);
}

TEST(ProjectExport, RefusesMissingInputs) {
  const ir::Graph g = testing::optimizedSampleGraph("sample_cnn");
  auto gp = generateProgram(testing::planSample(g, "wavefront"), g);
  ASSERT_TRUE(gp);
  const fs::path dir = fs::path(RAMMER_BINARY_DIR) / "tests/codegen_work/export/missing_inputs";
  fs::remove_all(dir);
  auto written = writeProject(dir, *gp, g, ExportData{"m", "wavefront", "h100", {}, {}});
  ASSERT_FALSE(written);
  EXPECT_NE(written.errorText().find("no input tensor given for graph input"), std::string::npos) << written.errorText();
}

TEST(ProjectExport, CudaProjectBuildsWithNvcc) {
  const std::string nvcc = testing::nvccPath();
  if (nvcc.empty()) GTEST_SKIP() << "no nvcc in /usr/local/cuda/bin";
  const Exported e = exportSample("wavefront", Target::Cuda, "sample_cnn_build");
  // The documented command, with nvcc from the toolkit.
  const auto [rc, out] = testing::runCommand("cd " + e.dir.string() + " && " + nvcc + " -O2 -arch=sm_90 -o prog *.cu");
  EXPECT_EQ(rc, 0) << out.substr(0, 20000);
  EXPECT_TRUE(fs::exists(e.dir / "prog"));
}

}  // namespace
}  // namespace rammer::codegen

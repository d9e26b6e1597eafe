// Runs every case of ONNX's own backend test data (../shared/onnx-conformance)
// through the importer and the reference executor. A case whose operators are
// all supported must reproduce every output (rtol 1e-3, atol 1e-5); a case
// with an unsupported operator must fail to load with an error naming it.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "core/exec/reference_executor.h"
#include "core/onnx/importer.h"
#include "core/onnx/tensor_file.h"
#include "core/ops/op_registry.h"
#include "core/passes/pass_manager.h"
#include "tests/conformance/conformance_cases.h"

namespace fs = std::filesystem;
using namespace rammer;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-5;

std::vector<fs::path> allCases() { return rammer::testing::conformanceCases(); }

// Op types the model uses that the registry lacks, read with protobuf
// directly so the check does not trust the importer under test.
std::set<std::string> unsupportedOpsOf(const fs::path& model) {
  std::ifstream in(model, std::ios::binary);
  onnx::ModelProto proto;
  std::set<std::string> out;
  if (!proto.ParseFromIstream(&in)) return out;
  for (const auto& n : proto.graph().node())
    if (!ops::OpRegistry::builtin().find(n.domain(), n.op_type())) out.insert(n.op_type());
  return out;
}

// Empty when equal within tolerance; otherwise what differs.
std::string compare(const ir::Tensor& got, const ir::Tensor& want) {
  if (got.dtype() != want.dtype())
    return "dtype " + std::string(ir::dtypeName(got.dtype())) + " != " + std::string(ir::dtypeName(want.dtype()));
  if (got.shape() != want.shape())
    return "shape " + ir::shapeToString(got.shape()) + " != " + ir::shapeToString(want.shape());
  if (got.dtype() == ir::DType::String)
    return got.strings() == want.strings() ? "" : "string values differ";
  for (int64_t i = 0; i < got.numel(); ++i) {
    double a = got.getDouble(i), b = want.getDouble(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    if (!(std::fabs(a - b) <= kAtol + kRtol * std::fabs(b))) {
      std::ostringstream os;
      os << "element " << i << ": got " << a << ", expected " << b;
      return os.str();
    }
  }
  return "";
}

// Optimized and unoptimized outputs agree to this tolerance (issue: numerics
// preserved by every pass).
constexpr double kPassRtol = 1e-4;
constexpr double kPassAtol = 1e-6;

// Imports the model with its input shapes bound from the given inputs.
ir::Result<ir::Graph> importBound(const fs::path& model, const std::vector<onnx_import::NamedTensor>& inputs) {
  auto probe = onnx_import::importModel(model, {.inferTypes = false});
  if (!probe) return probe.errors();
  onnx_import::ImportOptions opts;
  for (size_t i = 0; i < inputs.size() && i < probe->inputs().size(); ++i)
    opts.inputShapes[probe->value(probe->inputs()[i]).name] = inputs[i].tensor.shape();
  return onnx_import::importModel(model, opts);
}

std::vector<ir::Tensor> tensorsOf(std::vector<onnx_import::NamedTensor>& named) {
  std::vector<ir::Tensor> out;
  for (auto& t : named) out.push_back(std::move(t.tensor));
  return out;
}

// Empty on success, else the reason the case failed.
std::string runCase(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_directory() || entry.path().filename().string().rfind("test_data_set_", 0) != 0) continue;
    auto inputs = onnx_import::readTensorDir(entry.path(), "input");
    auto expected = onnx_import::readTensorDir(entry.path(), "output");
    if (!inputs || !expected) return "cannot read test data: " + (inputs ? expected.errorText() : inputs.errorText());

    auto graph = importBound(dir / "model.onnx", *inputs);
    if (!graph) return "import failed: " + graph.errorText();
    const std::vector<ir::Tensor> in = tensorsOf(*inputs);
    auto outputs = exec::runReference(*graph, in);
    if (!outputs) return "run failed: " + outputs.errorText();
    if (outputs->size() != expected->size())
      return std::to_string(outputs->size()) + " outputs, expected " + std::to_string(expected->size());
    for (size_t i = 0; i < outputs->size(); ++i)
      if (auto diff = compare((*outputs)[i], (*expected)[i].tensor); !diff.empty())
        return entry.path().filename().string() + " output " + std::to_string(i) + ": " + diff;
  }
  return "";
}

}  // namespace

TEST(Conformance, EveryCaseRunsOrIsRefusedByName) {
  const auto cases = allCases();
  ASSERT_GT(cases.size(), 100u) << "conformance data missing under " << RAMMER_SHARED_DIR;

  int passed = 0, failed = 0;
  std::vector<std::string> unsupported;
  for (const fs::path& dir : cases) {
    const std::string name = dir.parent_path().filename().string() + "/" + dir.filename().string();
    const std::set<std::string> missing = unsupportedOpsOf(dir / "model.onnx");
    if (!missing.empty()) {
      auto g = onnx_import::importModel(dir / "model.onnx");
      bool clear = !g;
      for (const auto& op : missing)
        clear = clear && g.errorText().find("unsupported") != std::string::npos &&
                g.errorText().find(op) != std::string::npos;
      std::string ops;
      for (const auto& op : missing) ops += (ops.empty() ? "" : ", ") + op;
      unsupported.push_back(name + " (" + ops + ")");
      ++failed;  // a clear refusal is right, but it is not a pass
      if (!clear)
        ADD_FAILURE() << name << ": uses unsupported " << ops << " but the error does not say so: "
                      << (g ? std::string("it loaded") : g.errorText());
      continue;
    }
    const std::string why = runCase(dir);
    if (why.empty()) {
      ++passed;
    } else {
      ++failed;
      ADD_FAILURE() << name << ": " << why;
    }
  }

  std::cout << "unsupported cases (" << unsupported.size() << "):\n";
  for (const auto& u : unsupported) std::cout << "  " << u << "\n";
  std::cout << "conformance: " << passed << " passed, " << failed << " failed\n";
  const double share = static_cast<double>(passed) / static_cast<double>(cases.size());
  EXPECT_GE(share, 0.90) << passed << " of " << cases.size() << " cases pass";
}

TEST(Conformance, OptimizedGraphsComputeTheSame) {
  int compared = 0;
  for (const fs::path& dir : allCases()) {
    if (!unsupportedOpsOf(dir / "model.onnx").empty()) continue;
    const std::string name = dir.parent_path().filename().string() + "/" + dir.filename().string();
    auto named = onnx_import::readTensorDir(dir / "test_data_set_0", "input");
    ASSERT_TRUE(named.ok()) << name << ": " << named.errorText();
    auto graph = importBound(dir / "model.onnx", *named);
    ASSERT_TRUE(graph.ok()) << name << ": " << graph.errorText();
    const std::vector<ir::Tensor> inputs = tensorsOf(*named);
    auto plain = exec::runReference(*graph, inputs);
    ASSERT_TRUE(plain.ok()) << name << ": " << plain.errorText();
    passes::PassContext ctx;
    auto records = passes::standardPipeline().run(*graph, ctx);
    ASSERT_TRUE(records.ok()) << name << ": " << records.errorText();
    auto optimized = exec::runReference(*graph, inputs);
    ASSERT_TRUE(optimized.ok()) << name << " (optimized): " << optimized.errorText();
    ASSERT_EQ(optimized->size(), plain->size()) << name;
    for (size_t i = 0; i < plain->size(); ++i) {
      const ir::Tensor& a = (*optimized)[i];
      const ir::Tensor& b = (*plain)[i];
      ASSERT_EQ(a.shape(), b.shape()) << name << " output " << i;
      if (a.dtype() == ir::DType::String) continue;
      for (int64_t k = 0; k < a.numel(); ++k) {
        const double x = a.getDouble(k), y = b.getDouble(k);
        if (std::isnan(x) && std::isnan(y)) continue;
        ASSERT_LE(std::fabs(x - y), kPassAtol + kPassRtol * std::fabs(y))
            << name << " output " << i << " element " << k;
      }
    }
    ++compared;
  }
  std::cout << "optimized vs unoptimized: " << compared << " cases compared\n";
  EXPECT_GE(compared, 120);
}

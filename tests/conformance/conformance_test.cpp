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

namespace fs = std::filesystem;
using namespace rammer;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-5;

std::vector<fs::path> allCases() {
  std::vector<fs::path> cases;
  const fs::path root = fs::path(RAMMER_SHARED_DIR) / "onnx-conformance";
  for (const char* suite : {"pytorch-converted", "pytorch-operator", "simple"}) {
    if (!fs::is_directory(root / suite)) continue;
    for (const auto& e : fs::directory_iterator(root / suite))
      if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

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

// Empty on success, else the reason the case failed.
std::string runCase(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_directory() || entry.path().filename().string().rfind("test_data_set_", 0) != 0) continue;
    auto inputs = onnx_import::readTensorDir(entry.path(), "input");
    auto expected = onnx_import::readTensorDir(entry.path(), "output");
    if (!inputs || !expected) return "cannot read test data: " + (inputs ? expected.errorText() : inputs.errorText());

    onnx_import::ImportOptions opts;
    std::vector<ir::Tensor> in;
    auto probe = onnx_import::importModel(dir / "model.onnx", {.inferTypes = false});
    if (!probe) return "import failed: " + probe.errorText();
    for (size_t i = 0; i < inputs->size() && i < probe->inputs().size(); ++i)
      opts.inputShapes[probe->value(probe->inputs()[i]).name] = (*inputs)[i].tensor.shape();
    for (auto& t : *inputs) in.push_back(std::move(t.tensor));

    auto graph = onnx_import::importModel(dir / "model.onnx", opts);
    if (!graph) return "import failed: " + graph.errorText();
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

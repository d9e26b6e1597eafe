#pragma once
// The cases of ../shared/onnx-conformance (one folder with model.onnx and
// test_data_set_N each), sorted, from the three suites it holds.
#include <algorithm>
#include <filesystem>
#include <vector>

namespace rammer::testing {

inline std::vector<std::filesystem::path> conformanceCases() {
  namespace fs = std::filesystem;
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

}  // namespace rammer::testing

// An exported project's fixed files are the files in core/codegen/harness/
// (#29 item 5): the harness every target writes is main.cpp as it is in the
// tree (HIP and the host with their one define first), the CUDA and HIP
// CMakeLists are the tree's byte for byte, and the host one is its template
// with the host compile flags in place of every placeholder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/codegen/harness_source.h"

namespace rammer::codegen {
namespace {

std::string treeFile(const std::string& name) {
  std::ifstream in(std::filesystem::path(RAMMER_SOURCE_DIR) / "core/codegen/harness" / name, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(HarnessSource, IsTheFileInTheTree) {
  const std::string main = treeFile("main.cpp");
  ASSERT_GT(main.size(), 1000u);
  EXPECT_EQ(harnessSource(Target::Cuda), main);
  EXPECT_EQ(harnessSource(Target::Hip), "#define RAMMER_HIP 1\n" + main);
  EXPECT_EQ(harnessSource(Target::Host), "#define RAMMER_HOST 1\n" + main);
}

TEST(HarnessSource, CMakeListsAreTheTreesWithTheHostFlagsFilledIn) {
  const std::string cuda = treeFile("CMakeLists.cuda.txt"), hip = treeFile("CMakeLists.hip.txt");
  ASSERT_NE(cuda.find("${CMAKE_CURRENT_SOURCE_DIR}"), std::string::npos);  // embedded unexpanded
  EXPECT_EQ(projectCMakeLists(Target::Cuda), cuda);
  EXPECT_EQ(projectCMakeLists(Target::Hip), hip);
  const std::string host = projectCMakeLists(Target::Host);
  EXPECT_EQ(host.find('@'), std::string::npos) << host;
  EXPECT_NE(host.find("${BOOST_CONTEXT}"), std::string::npos);
  EXPECT_NE(host.find("target_compile_options(prog PRIVATE -O3 -march=native)"), std::string::npos) << host;
  EXPECT_NE(host.find("target_compile_options(prog PRIVATE -O1 -g -fsanitize=thread -Wno-tsan)"), std::string::npos);
  EXPECT_NE(host.find("# Same as: c++ -std=c++20 -pthread -O3 -march=native -o prog"), std::string::npos);
}

}  // namespace
}  // namespace rammer::codegen

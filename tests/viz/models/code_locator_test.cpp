// Where an operator's and a program's code sit in the generated source:
// the op's range starts at its function group's header and holds its
// wrapper; a program's range holds its __global__ kernel. Checked on
// sample_cnn's Rammer (persistent kernels) and RammerBase (ordinary
// kernels shared by function group) plans.
#include "viz/models/code_locator.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/codegen/code_generator.h"
#include "tests/viz/editing_fixtures.h"

namespace rammer::viz {
namespace {

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string text(const std::vector<std::string>& ls, LineRange r) {
  std::string out;
  for (int i = r.first; i <= r.last; ++i) out += ls[static_cast<size_t>(i)] + "\n";
  return out;
}

void checkIndex(const std::string& policy) {
  SCOPED_TRACE(policy);
  const PipelineResult r = viztest::planSampleCnn(policy);
  ASSERT_TRUE(r.artifacts.plan && r.artifacts.optimized);
  auto program = codegen::generateProgram(*r.artifacts.plan, *r.artifacts.optimized);
  ASSERT_TRUE(program) << ir::formatDiagnostics(program.errors());
  auto index = indexGeneratedCode(*program, *r.artifacts.plan, *r.artifacts.optimized);
  ASSERT_TRUE(index) << ir::formatDiagnostics(index.errors());
  const auto ls = lines(program->source);
  ASSERT_EQ(index->ops.size(), r.artifacts.plan->ops.size());
  for (size_t op = 0; op < r.artifacts.plan->ops.size(); ++op) {
    const auto& p = r.artifacts.plan->ops[op];
    const LineRange range = index->ops[op];
    if (p.isView) {
      EXPECT_FALSE(range.valid()) << p.name;
      continue;
    }
    ASSERT_TRUE(range.valid()) << p.name;
    const int g = index->groupOfOp[op];
    ASSERT_GE(g, 0);
    const std::string& header = ls[static_cast<size_t>(range.first)];
    EXPECT_EQ(header.rfind("// group " + std::to_string(g) + ":", 0), 0u) << header;
    EXPECT_NE(header.find(p.kernel.name), std::string::npos) << header;
    const std::string body = text(ls, range);
    EXPECT_NE(body.find("void rammer_fn" + std::to_string(g) + "("), std::string::npos) << body;
    EXPECT_EQ(body.find("__global__"), std::string::npos);
  }
  ASSERT_EQ(index->programs.size(), r.artifacts.plan->programs.size());
  for (const auto& launch : program->launches) {
    const LineRange range = index->programs[static_cast<size_t>(launch.program)];
    ASSERT_TRUE(range.valid()) << launch.kernel;
    const std::string body = text(ls, range);
    EXPECT_NE(body.find("__global__"), std::string::npos);
    EXPECT_NE(body.find(launch.kernel + "("), std::string::npos) << body;
    EXPECT_EQ(ls[static_cast<size_t>(range.last)], "}");
    EXPECT_EQ(ls[static_cast<size_t>(range.first)].rfind("//", 0), 0u);
  }
}

TEST(CodeLocatorTest, FindsOpsAndProgramsInRammerCode) { checkIndex("wavefront"); }
TEST(CodeLocatorTest, FindsOpsAndProgramsInRammerBaseCode) { checkIndex("sequential"); }

}  // namespace
}  // namespace rammer::viz

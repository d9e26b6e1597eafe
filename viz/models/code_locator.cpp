#include "viz/models/code_locator.h"

#include <cctype>
#include <sstream>

#include "core/codegen/buffer_table.h"
#include "core/codegen/function_groups.h"

namespace rammer::viz {

namespace {

std::vector<std::string> splitLines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  return lines;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

// `name` as a whole identifier prefix in `line`: "rammer_p1" matches
// "rammer_p1(" and "rammer_p1_exec(" but not "rammer_p10(".
bool mentions(const std::string& line, const std::string& name) {
  for (size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1)) {
    const size_t end = at + name.size();
    const bool before = at == 0 || !(std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_');
    const bool after = end >= line.size() || !std::isdigit(static_cast<unsigned char>(line[end]));
    if (before && after) return true;
  }
  return false;
}

int find(const std::vector<std::string>& lines, int from, const std::string& prefix) {
  for (int i = std::max(0, from); i < static_cast<int>(lines.size()); ++i)
    if (startsWith(lines[static_cast<size_t>(i)], prefix)) return i;
  return -1;
}

}  // namespace

ir::Result<CodeIndex> indexGeneratedCode(const codegen::GeneratedProgram& program, const schedule::Plan& plan,
                                         const ir::Graph& graph) {
  auto buffers = codegen::buildBufferTable(plan, graph);
  if (!buffers) return buffers.errors();
  const codegen::FunctionGroups groups = codegen::groupFunctions(plan, buffers->opArgs);
  const auto lines = splitLines(program.source);
  const int functions = find(lines, 0, "// ---- rKernel functions");
  const int kernels = find(lines, std::max(functions, 0), "// ---- kernels");
  if (functions < 0 || kernels < 0) return ir::makeError("the generated source has no rKernel/kernel sections");

  CodeIndex index;
  index.groupOfOp = groups.groupOfOp;
  // Each group's text runs from its "// group G:" line to the next group or
  // the kernels section.
  std::vector<LineRange> groupRange(groups.groups.size());
  for (size_t g = 0; g < groups.groups.size(); ++g) {
    const int at = find(lines, functions, "// group " + std::to_string(g) + ":");
    if (at < 0 || at > kernels) continue;
    int end = at + 1;
    while (end < kernels && !startsWith(lines[static_cast<size_t>(end)], "// group ")) ++end;
    groupRange[g] = {at, end - 1};
  }
  index.ops.resize(plan.ops.size());
  for (size_t op = 0; op < plan.ops.size() && op < groups.groupOfOp.size(); ++op) {
    const int g = groups.groupOfOp[op];
    if (g >= 0 && static_cast<size_t>(g) < groupRange.size()) index.ops[op] = groupRange[static_cast<size_t>(g)];
  }

  // A program: from the comment above the first line naming its kernel to
  // the closing brace of the __global__ that defines it.
  index.programs.resize(plan.programs.size());
  for (const auto& launch : program.launches) {
    if (launch.program < 0 || static_cast<size_t>(launch.program) >= index.programs.size()) continue;
    int first = -1, global = -1;
    for (int i = kernels; i < static_cast<int>(lines.size()); ++i) {
      const std::string& l = lines[static_cast<size_t>(i)];
      if (!mentions(l, launch.kernel)) continue;
      if (first < 0) first = i;
      if (l.find("__global__") != std::string::npos) {
        global = i;
        break;
      }
    }
    if (global < 0) continue;
    while (first > kernels + 1 && startsWith(lines[static_cast<size_t>(first - 1)], "//")) --first;
    int last = global;
    while (last + 1 < static_cast<int>(lines.size()) && lines[static_cast<size_t>(last)] != "}") ++last;
    index.programs[static_cast<size_t>(launch.program)] = {first, last};
  }
  return index;
}

}  // namespace rammer::viz

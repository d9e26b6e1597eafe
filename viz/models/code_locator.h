#pragma once
// Where an operator's and a program's code sit in a generated source, so
// the Code dock can jump from an rTask or a program to it. An operator
// maps to the __device__ function of its function group (operators with
// identical rKernels share one) and its wrapper; a program to its
// __global__ kernel (RammerBase programs of one group share a kernel).
// Found from the generator's section comments and the group assignment
// the generator itself uses (codegen::groupFunctions), so nothing in core
// had to change. Qt-free.
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"

namespace rammer::viz {

// 0-based, inclusive; first < 0 when there is no code (views).
struct LineRange {
  int first = -1;
  int last = -1;
  bool valid() const { return first >= 0 && last >= first; }
};

struct CodeIndex {
  std::vector<LineRange> ops;       // per Plan::ops index
  std::vector<LineRange> programs;  // per Plan::programs index
  std::vector<int> groupOfOp;       // function group per op; -1 for views
};

ir::Result<CodeIndex> indexGeneratedCode(const codegen::GeneratedProgram& program, const schedule::Plan& plan,
                                         const ir::Graph& graph);

}  // namespace rammer::viz

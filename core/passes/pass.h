#pragma once
// A graph-to-graph transformation. Passes describe what they changed in the
// context's log so the GUI and `rammer info --print-passes` can show it.
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/ops/op_registry.h"

namespace rammer::passes {

class PassContext {
 public:
  explicit PassContext(const ops::OpRegistry& registry = ops::OpRegistry::builtin()) : registry_(registry) {}
  const ops::OpRegistry& registry() const { return registry_; }
  void note(std::string change) { notes_.push_back(std::move(change)); }
  std::vector<std::string> takeNotes() { return std::exchange(notes_, {}); }

 private:
  const ops::OpRegistry& registry_;
  std::vector<std::string> notes_;
};

// Whether the pass changed the graph, or why it could not run: a pass
// reports failure as diagnostics (MLIR's LogicalResult, with the reason),
// never by throwing.
using PassResult = ir::Result<bool>;

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  // Transforms the graph in place; true when it changed anything. Types of
  // new values must be set (or left to the manager's re-inference).
  virtual PassResult run(ir::Graph& graph, PassContext& ctx) = 0;
};

}  // namespace rammer::passes

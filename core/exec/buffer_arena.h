#pragma once
// Tensor storage for one emulated run of a Plan: graph inputs and constants
// are read in place (integer ones as word copies, core/ir/words.h), every
// operator output gets a buffer of 32-bit words of its own
// (NaN until an rTask writes it; never reused within a run), a view's
// output is its input's storage (no copy), a Concat run in place
// (RKernel::inputsInPlace) has its inputs written into its output, and a
// Gather or Split run in place (outputsInPlace) hands out parts of its
// input, as on the GPU. Built
// once before any worker starts; afterwards the pointers never change, so
// workers share them without locks.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/ir/graph.h"
#include "core/kernels/rkernel.h"
#include "core/schedule/plan.h"

namespace rammer::exec {

class BufferArena {
 public:
  // Resolves every value the plan's operators read or write and every graph
  // output. `inputs` (bound to graph.inputs() in order) and the graph's
  // constants are read in place: both must outlive the arena. Errors name the value or operator: a kernel that would read a
  // tensor of a type without words (float64, ...), a value no planned operator
  // produces, a shape that is not fully known, a view that changes the
  // element count.
  static ir::Result<BufferArena> build(const schedule::Plan& plan, const ir::Graph& graph,
                                       const std::vector<ir::Tensor>& inputs);

  // Pointers for op `op`'s rKernel, one per input / output slot.
  const kernels::TaskBuffers& buffers(int32_t op) const { return opBuffers_.at(static_cast<size_t>(op)); }
  // Sets op `op`'s outputs to zero (split-K kernels accumulate into them).
  void zeroOutputs(int32_t op);
  // Copies of the graph outputs, in order.
  ir::Result<std::vector<ir::Tensor>> outputs() const;
  // Bytes this arena allocated for operator outputs (4 a word).
  int64_t allocatedBytes() const { return allocated_ * static_cast<int64_t>(sizeof(float)); }

 private:
  // Where a value's elements live.
  struct Storage {
    const ir::Tensor* tensor = nullptr;  // graph input or constant, read in place
    int32_t buffer = -1;                 // index into buffers_ otherwise
    int64_t numel = 0;
    int64_t offset = 0;                  // elements into the buffer (a Concat's input placed in its output)
    bool known() const { return tensor || buffer >= 0; }
  };
  struct Buffer {
    std::unique_ptr<float[]> data;
    int64_t numel = 0;
  };
  struct GraphOutput {
    ir::ValueId value = ir::kNone;
    Storage storage;
  };

  // Its first element: in a buffer, or (a part of) a float32 input or constant.
  float* at(const Storage& s) const {
    return (s.tensor ? const_cast<float*>(s.tensor->data<float>()) : buffers_[static_cast<size_t>(s.buffer)].data.get()) +
           s.offset;
  }

  const ir::Graph* graph_ = nullptr;
  std::vector<Buffer> buffers_;
  std::vector<kernels::TaskBuffers> opBuffers_;
  struct Region {
    int32_t buffer = -1;
    int64_t offset = 0, numel = 0;
  };
  std::vector<std::vector<Region>> opOutputs_;  // what each op writes
  std::vector<GraphOutput> outputs_;
  int64_t allocated_ = 0;
};

}  // namespace rammer::exec

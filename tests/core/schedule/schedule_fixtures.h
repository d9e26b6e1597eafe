#pragma once
// Synthetic rKernels and small graphs for the policy and validator tests:
// the kernel library is replaced by a table of candidates per node.
#include <map>
#include <string>
#include <vector>

#include "core/device/device_spec.h"
#include "core/kernels/kernel_library.h"
#include "core/schedule/policy.h"
#include "core/schedule/validator.h"
#include "tests/support/graph_builder.h"

namespace rammer::testing {

inline kernels::RKernel fakeKernel(const std::string& name, int64_t rtasks, double flops, int threads = 256,
                                   int64_t shared = 0, double bytes = 0) {
  kernels::RKernel k;
  k.name = name;
  k.family = "fake";
  k.numRTasks = rtasks;
  k.block = {threads, 1, 1};
  k.sharedBytes = shared;
  k.regsEstimate = 32;
  k.flops = flops;
  k.bytes = bytes;
  return k;
}

// H100 limits with few SMs, so vEU counts stay small: 256-thread rKernels
// get 2048 / 256 = 8 vEUs per SM.
inline device::DeviceSpec smallDevice(int sms = 2) {
  device::DeviceSpec d = device::presetDevice("h100").value();
  d.sms = sms;
  return d;
}

// Candidates per node name; nodes not listed get one 4-rTask kernel;
// Reshape nodes are views.
struct FakeLibrary {
  std::map<std::string, std::vector<kernels::RKernel>> table;
  int64_t defaultTasks = 4;

  schedule::KernelSource source() const {
    return [this](const ir::Graph& g, ir::NodeId id) -> ir::Result<kernels::OperatorKernels> {
      const ir::Node& n = g.node(id);
      kernels::OperatorKernels ks;
      ks.node = id;
      if (n.opType == "Reshape") {
        ks.isView = true;
        return ks;
      }
      auto it = table.find(n.name);
      if (it != table.end()) ks.candidates = it->second;
      else ks.candidates = {fakeKernel(n.name + "_k", defaultTasks, 1e6 * static_cast<double>(defaultTasks))};
      return ks;
    };
  }
  schedule::PolicyOptions options() const {
    schedule::PolicyOptions o;
    o.kernelSource = source();
    return o;
  }
};

// A one-program plan by hand: every node of `g` an operator (index = node
// id) whose rKernel has tasks[node] rTasks, producers as the graph has
// them, and the given streams.
inline schedule::Plan handPlan(const ir::Graph& g, const std::vector<int64_t>& tasks,
                               std::vector<std::vector<schedule::Instr>> streams, int veusPerSM = 8) {
  schedule::Plan plan;
  plan.policy = "hand";
  plan.device = smallDevice();
  for (size_t i = 0; i < g.numNodeSlots(); ++i) {
    schedule::PlannedOp op;
    op.node = static_cast<ir::NodeId>(i);
    op.name = g.node(op.node).name;
    op.opType = g.node(op.node).opType;
    op.kernel = fakeKernel(op.name + "_k", tasks.at(i), 1e6);
    plan.ops.push_back(op);
  }
  std::vector<schedule::PlanProblem> ignored;  // the tests check plans with the validator themselves
  const auto producers = schedule::producersFromGraph(plan, g, ignored);
  for (size_t i = 0; i < plan.ops.size(); ++i) plan.ops[i].producers = producers[i];
  plan.programs.push_back(schedule::ProgramInfo{schedule::RProgram::fromStreams(std::move(streams)), veusPerSM, "hand"});
  return plan;
}
inline schedule::Instr exec(int32_t op, int64_t r) { return schedule::Exec{{op, r}}; }
inline schedule::Instr wait(std::vector<schedule::Slot> s) { return schedule::Barrier{std::move(s)}; }

// x -> a0 -> a1 -> ... -> a{n-1}
inline ir::Graph chainGraph(int n) {
  GraphBuilder b;
  ir::ValueId v = b.input("x", ir::Shape{4});
  for (int i = 0; i < n; ++i) v = b.op("Relu", "a" + std::to_string(i), {v});
  b.output(v);
  return std::move(b.graph());
}

// a -> (b, c) -> d
inline ir::Graph diamondGraph() {
  GraphBuilder b;
  ir::ValueId x = b.input("x", ir::Shape{4});
  ir::ValueId a = b.op("Relu", "a", {x});
  ir::ValueId l = b.op("Relu", "b", {a});
  ir::ValueId r = b.op("Relu", "c", {a});
  b.output(b.op("Add", "d", {l, r}));
  return std::move(b.graph());
}

// x -> b1 -> b2 and x -> c1 -> c2, two outputs.
inline ir::Graph twoBranchGraph() {
  GraphBuilder b;
  ir::ValueId x = b.input("x", ir::Shape{4});
  b.output(b.op("Relu", "b2", {b.op("Relu", "b1", {x})}));
  b.output(b.op("Relu", "c2", {b.op("Relu", "c1", {x})}));
  return std::move(b.graph());
}

// A stacked-LSTM-like grid: cell_l_t reads cell_l_{t-1} and cell_{l-1}_t.
inline ir::Graph gridGraph(int layers, int steps) {
  GraphBuilder b;
  std::vector<ir::ValueId> below;
  for (int t = 0; t < steps; ++t) below.push_back(b.input("x" + std::to_string(t), ir::Shape{4}));
  for (int l = 0; l < layers; ++l) {
    std::vector<ir::ValueId> row;
    ir::ValueId h = b.input("h" + std::to_string(l), ir::Shape{4});
    for (int t = 0; t < steps; ++t) {
      h = b.op("Add", "cell_" + std::to_string(l) + "_" + std::to_string(t), {below[static_cast<size_t>(t)], h});
      row.push_back(h);
    }
    below = row;
  }
  for (ir::ValueId v : below) b.output(v);
  return std::move(b.graph());
}

}  // namespace rammer::testing

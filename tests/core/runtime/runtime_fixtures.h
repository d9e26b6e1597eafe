#pragma once
// A hand-written GeneratedProgram that follows the kernel ABI of
// core/codegen/generated_program.h, with the Plan and graph it stands for,
// so the runtime is tested without the code generator.
//
//   y = x * w              op 0, rTasks 0 (y[0..127]) and 1 (y[128..255])
//   z[i] = y[i] + y[255-i]  op 1, rTasks 0 (z[0..127]) and 1 (z[128..255]),
//                           read through a view of y, so each waits for
//                           the other vEU's half of y (a barrier-rTask)
//   s = sum(z)             op 2, one rTask, atomics into a zeroed output
//
// Program 0: 2 vEUs x 128 threads
//   vEU 0: [op0 rTask 0, Barrier{(1,0)}, op1 rTask 1]
//   vEU 1: [op0 rTask 1, Barrier{(0,0)}, op1 rTask 0]
// Program 1: 1 vEU x 256 threads: [op2 rTask 0]
#include <cmath>
#include <string>
#include <vector>

#include "core/codegen/generated_program.h"
#include "core/device/device_spec.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"

namespace rammer::testing {

inline constexpr int kN = 256;

// Steps hold (epoch << 32) | instructions completed on the vEU.
inline const char* kHandKernelSource = R"(
static __device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
static __device__ __forceinline__ unsigned int sm_id() {
  unsigned int s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s;
}
static __device__ void publish(unsigned long long* step, unsigned long long v) {
  __syncthreads();
  if (threadIdx.x == 0) { __threadfence(); atomicExch(step, v); }
}
static __device__ void wait_for(unsigned long long* step, unsigned long long v) {
  if (threadIdx.x == 0) while (atomicAdd(step, 0ull) < v) {}
  __syncthreads();
}
static __device__ void record(unsigned long long* timing, int event, unsigned long long start) {
  __syncthreads();
  if (timing && threadIdx.x == 0) {
    timing[3 * event] = start; timing[3 * event + 1] = now_ns(); timing[3 * event + 2] = sm_id();
  }
}

extern "C" __global__ void hand_program0(float* const* buffers, unsigned long long* steps,
                                         unsigned long long epoch, unsigned long long* timing) {
  __shared__ float tile[128];
  const float* x = buffers[0]; const float* w = buffers[1]; float* y = buffers[2];
  float* z = buffers[3]; const float* yv = buffers[5];
  const int veu = blockIdx.x, t = threadIdx.x;
  const unsigned long long tag = epoch << 32;
  // op 0: this vEU's half of y
  unsigned long long t0 = now_ns();
  int i = veu * 128 + t;
  tile[t] = x[i] * w[i];
  __syncthreads();
  y[i] = tile[t];
  record(timing, veu == 0 ? 0 : 1, t0);
  publish(&steps[veu], tag | 1);
  // barrier-rTask: the other half
  wait_for(&steps[1 - veu], tag | 1);
  __threadfence();
  // op 1: vEU 0 runs rTask 1, vEU 1 runs rTask 0
  t0 = now_ns();
  int j = (1 - veu) * 128 + t;
  z[j] = yv[j] + yv[255 - j];
  record(timing, veu == 0 ? 3 : 2, t0);
  publish(&steps[veu], tag | 3);
}

extern "C" __global__ void hand_program1(float* const* buffers, unsigned long long* steps,
                                         unsigned long long epoch, unsigned long long* timing) {
  unsigned long long t0 = now_ns();
  atomicAdd(buffers[4], buffers[3][threadIdx.x]);
  record(timing, 4, t0);  // kernels add their own timingOffset (4 here)
}
)";

inline std::vector<float> handInput() {
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) x[static_cast<size_t>(i)] = 0.01f * static_cast<float>(i) - 1.0f;
  return x;
}
inline std::vector<float> handWeight() {
  std::vector<float> w(kN);
  for (int i = 0; i < kN; ++i) w[static_cast<size_t>(i)] = 0.5f + static_cast<float>(i % 7);
  return w;
}

// x input, w constant; z and s outputs (types set by hand: the runner only
// reads names, constants and shapes).
inline ir::Graph handGraph() {
  ir::Graph g;
  const ir::TensorType vec{ir::DType::Float32, {kN}, true};
  ir::ValueId x = g.addValue("x", vec);
  g.addInput(x);
  ir::ValueId w = g.addValue("w", vec);
  g.value(w).constant = ir::Tensor::fromVector<float>({kN}, handWeight());
  ir::ValueId y = g.addValue("y", vec);
  ir::ValueId z = g.addValue("z", vec);
  ir::ValueId s = g.addValue("s", {ir::DType::Float32, {1}, true});
  g.addNode(ir::Node{"mul", "Mul", "", {x, w}, {y}, {}, false});
  g.addNode(ir::Node{"mirror", "Add", "", {y, y}, {z}, {}, false});
  g.addNode(ir::Node{"sum", "ReduceSum", "", {z}, {s}, {}, false});
  g.addOutput(z);
  g.addOutput(s);
  return g;
}

// What the GPU should compute, in double precision.
inline std::vector<double> handExpectedZ() {
  auto x = handInput(), w = handWeight();
  std::vector<double> y(kN), z(kN);
  for (int i = 0; i < kN; ++i) y[static_cast<size_t>(i)] = double(x[static_cast<size_t>(i)]) * w[static_cast<size_t>(i)];
  for (int i = 0; i < kN; ++i) z[static_cast<size_t>(i)] = y[static_cast<size_t>(i)] + y[static_cast<size_t>(kN - 1 - i)];
  return z;
}

inline schedule::Plan handPlan() {
  using schedule::Barrier;
  using schedule::Exec;
  schedule::Plan plan;
  plan.policy = "hand";
  plan.device = device::presetDevice("h100").value();
  const char* names[] = {"mul", "mirror", "sum"};
  const char* types[] = {"Mul", "Add", "ReduceSum"};
  const int tasks[] = {2, 2, 1};
  for (int k = 0; k < 3; ++k) {
    schedule::PlannedOp op;
    op.node = k;
    op.name = names[k];
    op.opType = types[k];
    op.kernel.name = std::string(names[k]) + "_k";
    op.kernel.numRTasks = tasks[k];
    op.kernel.block = {128, 1, 1};
    op.kernel.regsEstimate = 20;
    if (k > 0) op.producers = {k - 1};
    plan.ops.push_back(op);
  }
  schedule::ProgramInfo p0;
  p0.program = schedule::RProgram::fromStreams({
      {Exec{{0, 0}}, Barrier{{{1, 0}}}, Exec{{1, 1}}},
      {Exec{{0, 1}}, Barrier{{{0, 0}}}, Exec{{1, 0}}},
  });
  p0.veusPerSM = 1;
  schedule::ProgramInfo p1;
  p1.program = schedule::RProgram::fromStreams({{Exec{{2, 0}}}});
  p1.veusPerSM = 1;
  plan.programs = {p0, p1};
  return plan;
}

// Buffers: 0 x, 1 w, 2 y, 3 z, 4 s, 5 a view of y.
inline codegen::GeneratedProgram handProgram() {
  using Kind = codegen::BufferInfo::Kind;
  codegen::GeneratedProgram p;
  p.source = kHandKernelSource;
  p.buffers = {
      {"x", 0, Kind::Input, kN, 0},        {"w", 1, Kind::Weight, kN, 1},  {"y", 2, Kind::Intermediate, kN, 2},
      {"z", 3, Kind::Output, kN, 3},       {"s", 4, Kind::Output, 1, 4},   {"y_view", 2, Kind::Intermediate, kN, 2},
  };
  p.buffers[0].inputIndex = 0;
  p.buffers[3].outputIndex = 0;
  p.buffers[4].outputIndex = 1;
  codegen::KernelLaunch l0;
  l0.kernel = "hand_program0";
  l0.program = 0;
  l0.gridBlocks = 2;
  l0.blockThreads = 128;
  l0.stepOffset = 0;
  l0.timingOffset = 0;
  l0.timedTasks = {{{0, 0}, 0, 0}, {{0, 1}, 1, 0}, {{1, 0}, 1, 2}, {{1, 1}, 0, 2}};
  codegen::KernelLaunch l1;
  l1.kernel = "hand_program1";
  l1.program = 1;
  l1.gridBlocks = 1;
  l1.blockThreads = kN;
  l1.stepOffset = 2;
  l1.timingOffset = 4;
  l1.zeroBuffers = {4};
  l1.timedTasks = {{{2, 0}, 0, 0}};
  p.launches = {l0, l1};
  p.numSteps = 3;
  p.numTimedEvents = 5;
  return p;
}

}  // namespace rammer::testing

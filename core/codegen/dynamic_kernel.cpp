#include "core/codegen/dynamic_kernel.h"

#include <fmt/format.h>

#include <limits>

#include "core/codegen/kernel_text.h"

namespace rammer::codegen {

namespace {

constexpr int64_t kMaxField = std::numeric_limits<int32_t>::max();

}  // namespace

ir::Result<QueueTable> buildQueueTable(const schedule::DynamicProgram& program, const std::vector<int32_t>& groupOfOp,
                                       const std::vector<int32_t>& argOffsetOfOp) {
  const auto n = static_cast<int64_t>(program.ops.size());
  const auto queued = static_cast<int64_t>(program.initial.size());
  QueueTable t;
  std::vector<int32_t>& w = t.words;
  const int64_t shards = program.claimShards;
  if (shards < 1 || shards > kMaxField) return ir::makeError(fmt::format("{} claim shards", shards));
  const int64_t opsAt = 5 + queued;
  int64_t consumersAt = opsAt + 8 * n;
  if (consumersAt > kMaxField) return ir::makeError("the ready queue's table exceeds 2^31 words");
  w = {static_cast<int32_t>(n), static_cast<int32_t>(queued), static_cast<int32_t>(opsAt),
       static_cast<int32_t>(consumersAt), static_cast<int32_t>(shards)};
  w.insert(w.end(), program.initial.begin(), program.initial.end());
  std::vector<int32_t> consumers;
  int64_t events = 0;
  for (const schedule::DynamicOp& d : program.ops) {
    if (d.op < 0 || static_cast<size_t>(d.op) >= groupOfOp.size() || groupOfOp[static_cast<size_t>(d.op)] < 0)
      return ir::makeError(fmt::format("the dynamic program runs op {}, which has no rKernel", d.op));
    if (d.rtasks > kMaxField || d.gate > kMaxField || events + d.rtasks > kMaxField ||
        consumers.size() + d.consumers.size() > static_cast<size_t>(kMaxField))
      return ir::makeError(fmt::format("op {} of the dynamic program has counts past 2^31", d.op));
    const int32_t fn = groupOfOp[static_cast<size_t>(d.op)];
    t.fns.insert(fn);
    w.insert(w.end(), {fn, argOffsetOfOp[static_cast<size_t>(d.op)], static_cast<int32_t>(d.rtasks),
                       static_cast<int32_t>(d.gate), static_cast<int32_t>(consumers.size()),
                       static_cast<int32_t>(d.consumers.size()), static_cast<int32_t>(events), 0});
    consumers.insert(consumers.end(), d.consumers.begin(), d.consumers.end());
    for (int64_t r = 0; r < d.rtasks; ++r) t.timedTasks.push_back(TimedTask{schedule::RTask{d.op, r}, -1, -1});
    events += d.rtasks;
  }
  w.insert(w.end(), consumers.begin(), consumers.end());
  // 64-bit words: the shared position, entries pushed, a claim (shard 0)
  // and a gate count per operator, an entry per operator not queued at
  // launch, and claim shards 1..K-1 per operator.
  t.stateWords = 2 * (2 + 2 * n + (n - queued) + (shards - 1) * n);
  return t;
}

std::string dynamicKernel(const CodegenOptions& options, const KernelLaunch& l, const std::set<int32_t>& fns,
                          const DynamicKernelLayout& at) {
  const bool inst = options.instrument;
  const std::string& p = l.kernel;
  std::string s = fmt::format(
      "// program {}: dynamic, {} vEUs ({} per SM) take rTasks from the ready queue at word {}, state in buffer {}\n",
      l.program, l.gridBlocks, l.veusPerSM, at.queueAt, at.stateBuffer);
  s += execSwitch(p, fns);
  s += fmt::format("extern \"C\" __global__ void {} {}{} {{\n", launchBounds(options, l.blockThreads, l.boundsBlocksPerSM), p,
                   kKernelSignature);
  s += "  (void)steps; (void)epoch; (void)timing; (void)launch;\n";
  s += "  const int veu = blockIdx.x, tid = threadIdx.x;\n";
  s += residentBegin(l.residentBytes, "  ");
  s += fmt::format("  const int* const q = rammer_table(buffers, {}) + {};\n", at.tableBuffer, at.queueAt);
  s += fmt::format("  unsigned long long* const st = reinterpret_cast<unsigned long long*>(buffers[{}]);\n",
                   at.stateBuffer);
  // Thread 0 dispatches; the block reads its choice from shared memory
  // past what the rKernels use.
  s += fmt::format("  int* const slot = reinterpret_cast<int*>(rammer_smem + {});\n", at.sharedWords);
  s += "  unsigned long long h = 0;  // thread 0's queue position\n";
  s += "  for (;;) {\n"
       "    if (tid == 0) {\n"
       "      int op = -1, rtask = 0;\n"
       "      rammer_next(q, st, &h, &op, &rtask, veu);\n"
       "      slot[0] = op;\n"
       "      slot[1] = rtask;\n"
       "      __threadfence();  // what the entry's acquire saw, for the whole block\n"
       "    }\n"
       "    __syncthreads();\n"
       "    if (slot[0] < 0) break;\n";
  if (inst) s += "    unsigned long long t0 = 0;\n    if (timing && tid == 0) t0 = rammer_clock();\n";
  s += fmt::format(
      "    {}_exec(q[q[2] + 8 * slot[0]], slot[1], tid, {}, buffers, rammer_words(buffers, {}) + q[q[2] + 8 * "
      "slot[0] + 1]);\n",
      p, scratchOf(l.residentBytes), at.tableBuffer);
  s += "    __syncthreads();  // the rTask is done, and the next dispatch reuses the slot\n";
  if (inst)
    // The vEU that ran it goes into the high half of the SM word: no table says it.
    s += fmt::format(
        "    if (timing && tid == 0) {{\n"
        "      unsigned long long* const tw = timing + 3 * ({}LL + q[q[2] + 8 * slot[0] + 6] + slot[1]);\n"
        "      tw[0] = t0;\n      tw[1] = rammer_clock();\n"
        "      tw[2] = ((unsigned long long)veu << 32) | rammer_smid();\n"
        "    }}\n",
        l.timingOffset);
  s += "    if (tid == 0) rammer_finish(q, st, slot[0], tid);\n"
       "  }\n}\n\n";
  return s;
}

}  // namespace rammer::codegen

#include "core/codegen/code_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <compare>
#include <limits>
#include <map>
#include <set>

#include "core/codegen/buffer_table.h"
#include "core/codegen/device_prelude.h"
#include "core/codegen/function_groups.h"
#include "core/codegen/dynamic_kernel.h"
#include "core/codegen/instruction_table.h"
#include "core/codegen/kernel_text.h"
#include "core/kernels/cuda_library.h"
#include "core/schedule/policy_registry.h"
#include "core/schedule/vdevice.h"

namespace rammer::codegen {

namespace {

constexpr int64_t kMaxWord = std::numeric_limits<int32_t>::max();

// One non-inlined wrapper per function group: each rKernel body is compiled
// once, however many operators and programs call it, and the kernels stay
// small switches. RAMMER_BLOCK_THREADS is the call itself on a GPU, where
// every thread of the block runs it; the host prelude runs it for each of
// the block's threads (a loop, or fibers when the body has __syncthreads).
std::string groupWrapper(size_t g, const FunctionGroup& group, int syncCount) {
  std::string call = group.function + "(rtask, tid, smem";
  for (int i = 0; i < group.numArgs; ++i) call += fmt::format(", rammer_ptr(b, a[{}])", i);
  return fmt::format(
      "static __device__ __noinline__ void rammer_fn{}(int rtask, int tid, float* smem, float* const* b, const int* a) {{\n"
      "  RAMMER_BLOCK_THREADS({}, {}));\n}}\n",
      g, syncCount, call);
}

// What a program runs: its ops and whether it has barriers (its block is
// its vDevice's, schedule::vdeviceOf).
struct ProgramShape {
  std::set<int32_t> ops;
  bool hasBarrier = false;
};

ProgramShape shapeOf(const schedule::Plan& plan, size_t p) {
  ProgramShape s;
  const schedule::ProgramInfo& info = plan.programs[p];
  if (info.dynamic) {  // no streams: the queue places its operators
    const std::vector<int32_t> ops = schedule::opsOfProgram(plan, p);
    s.ops.insert(ops.begin(), ops.end());
    return s;
  }
  for (const auto& stream : info.program.streams())
    for (const auto& ins : stream) {
      if (const auto* e = std::get_if<schedule::Exec>(&ins)) {
        s.ops.insert(e->task.op);
      } else {
        s.hasBarrier = true;
      }
    }
  return s;
}

// Thread 0 stamps the rTask's start (after the barrier that ended the
// previous one) and its end (after the barrier that ends this one).
std::string timingStart(const std::string& in) {
  return in + "unsigned long long t0 = 0;\n" + in + "if (tm && tid == 0) t0 = rammer_clock();\n";
}

std::string timingEnd(const std::string& in, const std::string& event) {
  return fmt::format(
      "{0}if (tm && tid == 0) {{\n"
      "{0}  unsigned long long* w = tm + 3 * ({1});\n"
      "{0}  w[0] = t0;\n{0}  w[1] = rammer_clock();\n{0}  w[2] = rammer_smid();\n{0}}}\n",
      in, event);
}

// Where a persistent program's parts sit in the table words.
struct ProgramTable {
  InstructionTable table;
  std::set<int32_t> fns;
  int64_t streams = 0, events = 0, code = 0, waits = 0;
};

// An ordinary kernel (RammerBase): rtask = blockIdx.x, no barriers. One
// kernel serves every operator of its function group and shape; the launch
// index picks the operator's argument list, so a plan with thousands of
// operators compiles a handful of kernels (ptxas time grows with kernel
// entries).
struct OrdinaryShape {
  int32_t fn = 0;
  int threads = 0;
  int blocksPerSM = 0;  // CUDA's minimum resident blocks: the program's vEUs per SM
  int64_t residentBytes = 0;
  auto operator<=>(const OrdinaryShape&) const = default;
};

std::string ordinaryKernel(const CodegenOptions& options, const std::string& name, const OrdinaryShape& k,
                           int32_t tableBuffer, int64_t launchArgs, int64_t launchTiming) {
  const bool inst = options.instrument;
  const int32_t fn = k.fn;
  std::string s = fmt::format("// RammerBase: function group {}, {} threads, one launch per operator\n", fn, k.threads);
  // As for a persistent kernel: the register budget of the planned shape
  // (without it ptxas may pick fewer registers and spill in the rKernel).
  s += fmt::format("extern \"C\" __global__ void {} {}{} {{\n", launchBounds(options, k.threads, k.blocksPerSM), name,
                   kKernelSignature);
  s += "  (void)steps; (void)epoch; (void)timing;\n";
  s += fmt::format("  const int* const table = rammer_table(buffers, {});\n", tableBuffer);
  s += "  const int tid = threadIdx.x;\n";
  s += residentBegin(k.residentBytes, "  ");
  if (inst)
    s += fmt::format("  unsigned long long* const tm = timing ? timing + 3 * (long long)table[{} + launch] : nullptr;\n",
                     launchTiming);
  s += "  {\n";
  if (inst) s += timingStart("    ");
  s += fmt::format("    rammer_fn{}(blockIdx.x, tid, {}, buffers, table + table[{} + launch]);\n", fn,
                   scratchOf(k.residentBytes), launchArgs);
  if (inst) s += "    __syncthreads();\n" + timingEnd("    ", "blockIdx.x");
  s += "  }\n}\n\n";
  return s;
}

// A persistent kernel: block = vEU, walking its range of the instruction
// table (entries of 6 words: fn, args, first, count, stride, publish).
std::string persistentKernel(const CodegenOptions& options, const KernelLaunch& l, const ProgramTable& t,
                             int32_t tableBuffer) {
  const bool inst = options.instrument;
  const std::string& p = l.kernel;
  std::string s = fmt::format("// program {}: {} vEUs ({} per SM), {} table entries at word {}\n", l.program,
                              l.gridBlocks, l.veusPerSM, t.table.entries.size(), t.code);
  s += execSwitch(p, t.fns);  // only the groups this program uses
  s += fmt::format("extern \"C\" __global__ void {} {}{} {{\n", launchBounds(options, l.blockThreads, l.boundsBlocksPerSM), p,
                   kKernelSignature);
  // Only the loop counters (and the vEU and thread index) stay live across
  // an rTask's call: the table words are re-read around each one. A value
  // live across a call is a register the rKernel function must save, or a
  // spill in the kernel (runtime/ptxas_log.h reports both).
  const std::string w = fmt::format("rammer_words(buffers, {})", tableBuffer);
  s += "  (void)timing; (void)launch;\n";
  s += "  const int veu = blockIdx.x, tid = threadIdx.x;\n";
  s += residentBegin(l.residentBytes, "  ");
  s += fmt::format("  const int begin = rammer_table(buffers, {})[{} + 2 * veu];\n", tableBuffer, t.streams);
  if (inst) s += "  long long ev = 0;\n";
  s += fmt::format("  for (int i = begin; i < {0}[{1} + 2 * veu + 1]; ++i) {{\n", w, t.streams);
  s += fmt::format("    if ({0}[{1} + 6 * i] < 0) {{\n"
                   "      const int* const in = {0} + {1} + 6 * i;\n"
                   "      rammer_wait(steps + {2}LL, epoch, {0} + {3} + in[1], in[3], tid);\n"
                   "    }} else {{\n"
                   "      for (int k = 0; k < {0}[{1} + 6 * i + 3]; ++k) {{\n"
                   "        const int* const in = {0} + {1} + 6 * i;\n",
                   w, t.code, l.stepOffset, t.waits);
  if (inst) s += "        unsigned long long t0 = 0;\n        if (timing && tid == 0) t0 = rammer_clock();\n";
  s += fmt::format("        {}_exec(in[0], in[2] + k * in[4], tid, {}, buffers, {} + in[1]);\n", p,
                   scratchOf(l.residentBytes), w);
  s += "        __syncthreads();  // the next rTask reuses shared memory\n";
  if (inst) {
    s += fmt::format(
        "        if (timing && tid == 0) {{\n"
        "          unsigned long long* const tw = timing + 3 * ({}LL + {}[{} + veu] + ev);\n"
        "          tw[0] = t0;\n          tw[1] = rammer_clock();\n          tw[2] = rammer_smid();\n"
        "        }}\n        ++ev;\n",
        l.timingOffset, w, t.events);
  }
  s += fmt::format("      }}\n    }}\n"
                   "    const int publish = {0}[{1} + 6 * i + 5];\n"
                   "    if (publish) rammer_publish(steps + {2}LL + veu, (epoch << 32) | (unsigned long long)publish, tid);\n"
                   "  }}\n}}\n\n",
                   w, t.code, l.stepOffset);
  return s;
}

void append(std::vector<int32_t>& words, const std::vector<int32_t>& more) { words.insert(words.end(), more.begin(), more.end()); }

}  // namespace

ir::Result<GeneratedProgram> generateProgram(const schedule::Plan& plan, const ir::Graph& given,
                                             const CodegenOptions& options) {
  const ir::Graph& graph = schedule::graphOf(plan, given);  // the plan's own after a merge
  auto buffers = buildBufferTable(plan, graph);
  if (!buffers) return buffers.errors();
  const FunctionGroups groups = groupFunctions(plan, buffers->opArgs);

  GeneratedProgram out;
  out.target = options.target;
  out.buffers = buffers->buffers;
  out.numFunctions = static_cast<int64_t>(groups.groups.size());
  for (const FunctionGroup& g : groups.groups) out.functionOps.push_back(g.ops);

  // The table: a header, then every op's buffer indices back to back (an
  // entry's `args` is the absolute word offset of its op's list).
  std::vector<int32_t>& words = out.tableWords;
  words = {kTableMagic, 0, static_cast<int32_t>(plan.programs.size()), 0};
  std::vector<int32_t> argOffset(plan.ops.size(), 0);
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    argOffset[i] = static_cast<int32_t>(words.size());
    append(words, buffers->opArgs[i]);
    if (static_cast<int64_t>(words.size()) >= kMaxWord) return ir::makeError("the argument table exceeds 2^31 words");
  }

  // Launches, and the instruction tables of the persistent ones.
  std::vector<ProgramTable> tables(plan.programs.size());
  std::vector<QueueTable> queues(plan.programs.size());
  std::vector<DynamicKernelLayout> dynamicAt(plan.programs.size());
  std::vector<int32_t> launchArgs, launchTiming;  // per launch (ordinary kernels read them)
  std::map<OrdinaryShape, std::string> ordinaryKernels;
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const schedule::ProgramInfo& info = plan.programs[p];
    const ProgramShape shape = shapeOf(plan, p);
    for (int32_t op : shape.ops)
      if (op < 0 || static_cast<size_t>(op) >= plan.ops.size() || groups.groupOfOp[static_cast<size_t>(op)] < 0)
        return ir::makeError(fmt::format("program {} runs op {}, which has no rKernel", p, op));
    // One vEU is one persistent block, sized for the largest rTask it may run.
    auto vdevice = schedule::vdeviceOf(plan, p);
    if (!vdevice) return ir::makeError(fmt::format("program {}: {}", p, vdevice.errorText()));
    KernelLaunch l;
    l.kernel = fmt::format("rammer_p{}", p);
    l.program = static_cast<int32_t>(p);
    l.blockThreads = vdevice->threads;
    l.dynamicSharedBytes = vdevice->sharedBytes;
    l.residentBytes = vdevice->residentBytes;
    l.veusPerSM = info.veusPerSM;
    l.timingOffset = out.numTimedEvents;
    // Split-K outputs accumulate atomically from zero.
    std::set<int32_t> zero;
    for (int32_t op : shape.ops) {
      const auto& pop = plan.ops[static_cast<size_t>(op)];
      if (!pop.kernel.zeroOutputsFirst) continue;
      const auto& a = buffers->opArgs[static_cast<size_t>(op)];
      for (size_t k = graph.node(pop.node).inputs.size(); k < a.size(); ++k)
        if (a[k] >= 0) zero.insert(out.buffers[static_cast<size_t>(a[k])].storage);
    }
    if (info.dynamic) {
      auto q = buildQueueTable(*info.dynamic, groups.groupOfOp, argOffset);
      if (!q) return q.errors();
      // Its state (claims, gates, pushed entries) starts from zero each launch.
      BufferInfo state;
      state.name = fmt::format("rammer_dynamic_state_p{}", p);
      state.numel = q->stateWords;
      state.storage = static_cast<int32_t>(out.buffers.size());
      out.buffers.push_back(state);
      zero.insert(state.storage);
      dynamicAt[p].stateBuffer = state.storage;
      // The vDevice's shared memory ends with the dispatch slot (two ints).
      dynamicAt[p].sharedWords = (l.dynamicSharedBytes - schedule::kDispatchSlotBytes + 3) / 4;
      l.gridBlocks = info.program.numVEUs();
      l.timedTasks = q->timedTasks;
      for (int32_t fn : q->fns) l.functions.push_back(fmt::format("rammer_fn{}", fn));
      queues[p] = std::move(q).value();
    }
    l.zeroBuffers.assign(zero.begin(), zero.end());

    const bool ordinary = options.ordinaryKernelsForSequential && schedule::findPolicy(plan.policy) == schedule::PolicyId::Sequential &&
                          shape.ops.size() == 1 && !shape.hasBarrier;
    int32_t launchArg = 0;
    if (info.dynamic) {
      l.persistent = true;  // every vEU resident: they wait on each other through the queue
    } else if (ordinary) {
      const int32_t op = *shape.ops.begin();
      const int64_t tasks = plan.ops[static_cast<size_t>(op)].kernel.numRTasks;
      if (tasks > kMaxWord)
        return ir::makeError(fmt::format("'{}' has {} rTasks, more than one grid can hold", plan.ops[static_cast<size_t>(op)].name, tasks));
      l.persistent = false;
      l.gridBlocks = static_cast<int>(tasks);
      for (int64_t r = 0; r < tasks; ++r) {
        const schedule::Slot at = info.program.slotOf(schedule::RTask{op, r});
        l.timedTasks.push_back(TimedTask{schedule::RTask{op, r}, at.veu, at.order});
      }
      const int32_t fn = groups.groupOfOp[static_cast<size_t>(op)];
      const OrdinaryShape k{fn, l.blockThreads, std::max(1, l.veusPerSM), l.residentBytes};
      l.kernel = ordinaryKernels
                     .try_emplace(k, k.blocksPerSM > 1 ? fmt::format("rammer_base_f{}_t{}_b{}", fn, k.threads, k.blocksPerSM)
                                                       : fmt::format("rammer_base_f{}_t{}", fn, k.threads))
                     .first->second;
      launchArg = argOffset[static_cast<size_t>(op)];
      l.argsOffset = launchArg;
      l.functions = {fmt::format("rammer_fn{}", fn)};
    } else {
      auto t = buildInstructionTable(info.program, groups.groupOfOp, argOffset);
      if (!t) return t.errors();
      l.persistent = true;
      l.gridBlocks = std::max(1, t->activeVEUs);
      l.stepOffset = out.numSteps;
      out.numSteps += l.gridBlocks;
      l.timedTasks = t->timedTasks;
      for (int32_t op : shape.ops) tables[p].fns.insert(groups.groupOfOp[static_cast<size_t>(op)]);
      for (int32_t fn : tables[p].fns) l.functions.push_back(fmt::format("rammer_fn{}", fn));
      tables[p].table = std::move(t).value();
      out.numTableEntries += static_cast<int64_t>(tables[p].table.entries.size());
    }
    l.boundsBlocksPerSM = l.persistent && !options.boundsAtPlanShape
                              ? minResidentBlocks(l.gridBlocks, l.veusPerSM, plan.device.sms)
                              : l.veusPerSM;
    out.numTimedEvents += static_cast<int64_t>(l.timedTasks.size());
    if (out.numTimedEvents > kMaxWord) return ir::makeError("more than 2^31 rTasks to time");
    launchArgs.push_back(launchArg);
    launchTiming.push_back(static_cast<int32_t>(l.timingOffset));
    out.launches.push_back(std::move(l));
  }

  // Lay out the rest of the table: per-launch words, then per program its
  // stream ranges, event bases, entries and wait lists.
  const auto launchArgsAt = static_cast<int64_t>(words.size());
  append(words, launchArgs);
  const auto launchTimingAt = static_cast<int64_t>(words.size());
  append(words, launchTiming);
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    const KernelLaunch& l = out.launches[p];
    if (plan.programs[p].dynamic) {
      dynamicAt[p].queueAt = static_cast<int64_t>(words.size());
      out.launches[p].table.queue = dynamicAt[p].queueAt;
      append(words, queues[p].words);
      if (static_cast<int64_t>(words.size()) >= kMaxWord) return ir::makeError("the queue tables exceed 2^31 words");
      continue;
    }
    if (!l.persistent) continue;
    ProgramTable& t = tables[p];
    t.streams = static_cast<int64_t>(words.size());
    for (int v = 0; v < l.gridBlocks; ++v) append(words, {t.table.streams[static_cast<size_t>(v)].begin, t.table.streams[static_cast<size_t>(v)].end});
    t.events = static_cast<int64_t>(words.size());
    for (int v = 0; v < l.gridBlocks; ++v) words.push_back(static_cast<int32_t>(t.table.eventBase[static_cast<size_t>(v)]));
    t.code = static_cast<int64_t>(words.size());
    for (const TableEntry& e : t.table.entries) append(words, {e.fn, e.args, e.first, e.count, e.stride, e.publish});
    t.waits = static_cast<int64_t>(words.size());
    append(words, t.table.waits);
    out.launches[p].table = {t.streams, t.events, t.code, t.waits};
    if (static_cast<int64_t>(words.size()) >= kMaxWord) return ir::makeError("the instruction tables exceed 2^31 words");
  }
  words[1] = static_cast<int32_t>(words.size());

  // The table is one more buffer, uploaded by the runtime (tableWords).
  BufferInfo tb;
  tb.name = "rammer_instruction_table";
  tb.kind = BufferInfo::Kind::Table;
  tb.numel = static_cast<int64_t>(words.size());
  tb.storage = static_cast<int32_t>(out.buffers.size());
  out.tableBuffer = tb.storage;
  out.buffers.push_back(tb);

  std::string src = fmt::format("// Generated by Rammer Studio: policy {}, device {}, {} program(s), {} rKernel function(s).\n",
                                plan.policy, plan.device.id, plan.programs.size(), groups.groups.size());
  src += "// Kernel ABI and protocol: docs/CODEGEN.md. The instruction tables are data: buffer ";
  src += fmt::format("{} ({} words).\n", out.tableBuffer, words.size());
  src += kPreludeBegin;
  src += devicePrelude(options.target);
  src += kPreludeEnd;
  // The fixed rKernel bodies (core/kernels/cuda/*.cuh) the functions instantiate, once each.
  std::vector<std::string> libraries;
  for (const FunctionGroup& group : groups.groups)
    for (const std::string& lib : plan.ops[static_cast<size_t>(group.representative)].kernel.cudaLibraries)
      if (std::find(libraries.begin(), libraries.end(), lib) == libraries.end()) libraries.push_back(lib);
  for (const std::string& lib : libraries) {
    const std::string_view text = kernels::cudaLibrary(lib);
    if (text.empty()) return ir::makeError("an rKernel needs " + lib + ", which this build of rammer lacks");
    src += "\n// ---- " + lib + " (core/kernels/cuda/) ----\n";
    src += text;
  }
  src += "\n// ---- rKernel functions (one per distinct rKernel) ----\n";
  for (size_t g = 0; g < groups.groups.size(); ++g) {
    const auto& rep = plan.ops[static_cast<size_t>(groups.groups[g].representative)];
    src += fmt::format("// group {}: {} ({}), {} operator(s)\n", g, rep.kernel.name, rep.name, groups.groups[g].ops.size());
    src += rep.kernel.cudaSource;
    src += groupWrapper(g, groups.groups[g], rep.kernel.syncCount);
  }
  src += "\n// ---- kernels ----\n";
  for (size_t p = 0; p < plan.programs.size(); ++p) {
    dynamicAt[p].tableBuffer = out.tableBuffer;
    if (plan.programs[p].dynamic)
      src += dynamicKernel(options, out.launches[p], queues[p].fns, dynamicAt[p]);
    else if (out.launches[p].persistent)
      src += persistentKernel(options, out.launches[p], tables[p], out.tableBuffer);
  }
  for (const auto& [key, name] : ordinaryKernels)
    src += ordinaryKernel(options, name, key, out.tableBuffer, launchArgsAt, launchTimingAt);
  out.source = std::move(src);
  return out;
}

}  // namespace rammer::codegen

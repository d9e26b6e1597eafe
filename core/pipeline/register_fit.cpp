#include "core/pipeline/register_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "core/runtime/cuda_build.h"
#include "core/runtime/nvrtc_compiler.h"

namespace rammer::pipeline {

namespace {

// "rammer_fn12" -> 12; -1 for any other name.
int functionIndex(const std::string& name) {
  constexpr std::string_view prefix = "rammer_fn";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return -1;
  int n = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

int64_t spillsOf(const std::vector<runtime::ProgramResources>& compiled) {
  int64_t bytes = 0;
  for (const auto& r : compiled) bytes += r.spillStoreBytes();
  return bytes;
}

// How many times an operator's program is split before its rKernel gets
// more registers instead. Measured on the wavefront programs (--compile,
// sm_90, analytic model): resnext29's spills nowhere after two splits,
// predicted as before (1,438 us; given registers after one split, 1,679);
// nasnet's keeps spilling in programs of one or two functions however
// often it is split (44 programs after six rounds); inception_v3's, given
// registers after two splits, is predicted at 1,727 us, after three at
// 1,363 (1,333 as it spilled), nasnet's then at 1,440 (1,408 after two).
constexpr int kSplitsBeforeRegisters = 3;

// Where a program of several functions splits: the first operator after
// its first at which half of its functions have been called (in plan
// order, the order every policy places operators in), and no cut is
// forbidden. -1: none.
int32_t splitPoint(const schedule::Plan& plan, const std::vector<int32_t>& ops, const std::vector<int32_t>& fnOfOp,
                   const schedule::Constraints& constraints, const std::set<std::string>& cuttable) {
  std::set<int32_t> all, seen;
  for (int32_t op : ops)
    if (fnOfOp[static_cast<size_t>(op)] >= 0) all.insert(fnOfOp[static_cast<size_t>(op)]);
  if (all.size() < 2) return -1;
  for (size_t i = 0; i < ops.size(); ++i) {
    const int32_t fn = fnOfOp[static_cast<size_t>(ops[i])];
    if (fn < 0) continue;
    const bool fresh = seen.insert(fn).second;
    const std::string& name = plan.ops[static_cast<size_t>(ops[i])].name;
    if (fresh && i > 0 && seen.size() > all.size() / 2 && !constraints.noCutBefore.count(name) &&
        (cuttable.empty() || cuttable.count(name)))
      return ops[i];
  }
  return -1;
}

}  // namespace

RegisterAdvice registerAdviceOf(const schedule::Plan& plan, const codegen::GeneratedProgram& program,
                                const std::vector<runtime::ProgramResources>& compiled,
                                const schedule::Constraints& constraints,
                                const std::map<std::string, int>& spilledBefore, const std::set<std::string>& cuttable) {
  RegisterAdvice advice;
  const int most = plan.device.maxRegsPerThread > 0 ? plan.device.maxRegsPerThread : 255;
  std::vector<int32_t> fnOfOp(plan.ops.size(), -1);
  for (size_t fn = 0; fn < program.functionOps.size(); ++fn)
    for (int32_t op : program.functionOps[fn])
      if (op >= 0 && static_cast<size_t>(op) < fnOfOp.size()) fnOfOp[static_cast<size_t>(op)] = static_cast<int32_t>(fn);
  for (const runtime::ProgramResources& r : compiled) {
    if (r.spillStoreBytes() == 0 || r.program < 0 || static_cast<size_t>(r.program) >= plan.programs.size()) continue;
    const std::vector<int32_t> inProgram = schedule::opsOfProgram(plan, static_cast<size_t>(r.program));
    // The operators it spilled on: its spilling functions', or all of them
    // when the kernel's own frame spills (its budget is every rKernel's).
    std::set<int32_t> ops;
    if (r.usage.spillStoreBytes > 0) {
      ops.insert(inProgram.begin(), inProgram.end());
    } else {
      for (const auto& [name, usage] : r.functions) {
        const int fn = functionIndex(name);
        if (usage.spillStoreBytes == 0 || fn < 0 || static_cast<size_t>(fn) >= program.functionOps.size()) continue;
        for (int32_t op : program.functionOps[static_cast<size_t>(fn)])
          if (std::binary_search(inProgram.begin(), inProgram.end(), op)) ops.insert(op);
      }
    }
    // While they have spilled in fewer rounds than kSplitsBeforeRegisters,
    // the many functions around them may be the cause: split. After that,
    // in ever smaller programs, it is their rKernels.
    const bool again = std::any_of(ops.begin(), ops.end(), [&](int32_t op) {
      auto it = spilledBefore.find(plan.ops[static_cast<size_t>(op)].name);
      return it != spilledBefore.end() && it->second >= kSplitsBeforeRegisters;
    });
    for (int32_t op : ops) advice.spilled.insert(plan.ops[static_cast<size_t>(op)].name);
    if (!again) {
      if (const int32_t cut = splitPoint(plan, inProgram, fnOfOp, constraints, cuttable); cut >= 0) {
        advice.cutBefore.insert(plan.ops[static_cast<size_t>(cut)].name);
        continue;
      }
    }
    const int need = r.usage.registers + 1;
    if (need > most) continue;  // already the most a thread may have: nothing to ask for
    for (int32_t op : ops) {
      const schedule::PlannedOp& p = plan.ops[static_cast<size_t>(op)];
      if (p.isView) continue;
      int& n = advice.needs[{p.name, p.kernel.name}];
      n = std::max(n, need);
    }
  }
  return advice;
}

schedule::KernelSource withRegisterNeeds(schedule::KernelSource source, std::shared_ptr<const RegisterNeeds> needs) {
  return [source = std::move(source), needs = std::move(needs)](const ir::Graph& graph,
                                                                ir::NodeId node) -> ir::Result<kernels::OperatorKernels> {
    auto found = source(graph, node);
    if (!found || !needs || needs->empty()) return found;
    const std::string& op = graph.node(node).name;
    for (kernels::RKernel& k : found->candidates) {
      auto it = needs->find({op, k.name});
      if (it != needs->end()) k.regsEstimate = std::max(k.regsEstimate, it->second);
    }
    return found;
  };
}

ir::Result<RegisterFit> fitRegisters(schedule::Plan plan, const ir::Graph& graph,
                                     const schedule::Constraints& constraints,
                                     const std::function<ir::Result<schedule::Plan>(const RegisterAdvice&)>& replan,
                                     const RegisterFitOptions& options) {
  auto nvrtc = runtime::NvrtcCompiler::load(options.nvrtcLibraries.empty() ? runtime::NvrtcCompiler::defaultCandidates()
                                                                            : options.nvrtcLibraries);
  if (!nvrtc)
    return ir::makeError("fitting registers needs NVRTC (the CUDA toolkit's libnvrtc): " +
                         nvrtc.errors().front().message);
  const std::string arch = options.arch.empty() ? runtime::cudaArch(plan.device) : options.arch;
  RegisterFit fit;
  std::map<std::string, int> spilled;  // operator -> the rounds whose compile spilled on it
  // A cut names a node of the graph the policy plans (not an operator the
  // policy made of several: GraphTurbo's groups).
  std::set<std::string> cuttable;
  for (size_t n = 0; n < graph.numNodeSlots(); ++n)
    if (!graph.node(static_cast<ir::NodeId>(n)).removed) cuttable.insert(graph.node(static_cast<ir::NodeId>(n)).name);
  for (int round = 0;; ++round) {
    schedule::Plan scratch = plan;  // the build writes compiled counts into its plan; the fit keeps estimates
    auto build = runtime::buildCuda(scratch, graph, **nvrtc, arch);
    if (!build) return build.errors();
    fit.spillBytes = spillsOf(build->resources);
    if (fit.spillBytes == 0) break;
    schedule::Constraints now = constraints;
    now.cutBefore.insert(fit.advice.cutBefore.begin(), fit.advice.cutBefore.end());
    const RegisterAdvice found = registerAdviceOf(plan, *build->program, build->resources, now, spilled, cuttable);
    for (const std::string& op : found.spilled) ++spilled[op];
    size_t cuts = 0, raised = 0;
    for (const std::string& op : found.cutBefore) cuts += fit.advice.cutBefore.insert(op).second ? 1 : 0;
    for (const auto& [key, n] : found.needs) {
      int& have = fit.advice.needs[key];
      if (n > have) {
        have = n;
        ++raised;
      }
    }
    if (cuts + raised == 0 || round >= options.maxRounds || (options.cancelled && options.cancelled())) {
      fit.log.push_back(fmt::format("registers: still {} B spilled after {} re-plan(s){}", fit.spillBytes, fit.replans,
                                    cuts + raised == 0 ? " (nothing left to change: every spilling rKernel has the "
                                                         "most registers a thread may have)"
                                                       : ""));
      break;
    }
    auto again = replan(fit.advice);
    if (!again) return again.errors();
    fit.log.push_back(fmt::format("registers: {} B spilled; re-planned with {} more program cut(s) and {} rKernel(s) "
                                  "given more registers",
                                  fit.spillBytes, cuts, raised));
    plan = std::move(again).value();
    ++fit.replans;
  }
  fit.plan = std::move(plan);
  return fit;
}

ir::Result<RegisterFit> fitScheduledPlan(const schedule::Plan& chosen, const ir::Graph& from,
                                         std::shared_ptr<const ir::Graph> fromShared, const device::DeviceSpec& device,
                                         const schedule::Constraints& constraints, const PolicyWithNeeds& makePolicy,
                                         const RegisterFitOptions& options) {
  auto replan = [&](const RegisterAdvice& advice) -> ir::Result<schedule::Plan> {
    schedule::Constraints cut = constraints;
    cut.cutBefore.insert(advice.cutBefore.begin(), advice.cutBefore.end());
    auto plan = makePolicy(advice.needs)->schedule(from, device, cut);
    if (plan && fromShared && !plan->graph) plan->graph = fromShared;
    return plan;
  };
  return fitRegisters(chosen, from, constraints, replan, options);
}

}  // namespace rammer::pipeline

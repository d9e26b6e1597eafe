#include "core/schedule/ios_policy.h"

#include <algorithm>
#include <cmath>

#include "core/device/occupancy.h"
#include "core/schedule/ios_search.h"
#include "core/schedule/plan_builder.h"
#include "core/schedule/stage_placement.h"

namespace rammer::schedule {

namespace {

ir::Result<bool> checkOptions(const IosOptions& o) {
  if (o.variant == "merge" || o.variant == "both")
    return ir::makeError("IOS operator merge (--ios-variant " + o.variant +
                         ") needs merged rKernels, which are not built yet; use --ios-variant parallel");
  if (o.variant != "parallel")
    return ir::makeError("unknown IOS variant '" + o.variant + "'; variants: parallel, merge, both");
  if (o.maxGroupOps < 1 || o.maxGroups < 1)
    return ir::makeError("IOS needs at least one operator per group and one group per stage (--ios-r, --ios-s)");
  if (o.blockOps < 1) return ir::makeError("IOS needs blocks of at least one operator");
  if (o.programs != "stage" && o.programs != "one")
    return ir::makeError("unknown IOS program layout '" + o.programs + "'; layouts: stage, one");
  return true;
}

std::string groupText(const PlanBuilder& b, const std::vector<std::vector<int32_t>>& groups) {
  std::string s;
  for (const auto& g : groups) {
    if (!s.empty()) s += " | ";
    for (size_t k = 0; k < g.size(); ++k) s += (k ? " -> " : "") + b.label(g[k]);
  }
  return s;
}

}  // namespace

ir::Result<Plan> IosPolicy::schedule(const ir::Graph& optimizedGraph, const device::DeviceSpec& device,
                                     const Constraints& constraints) const {
  const IosOptions& io = options().ios;
  if (auto ok = checkOptions(io); !ok) return ok.errors();
  auto started = PlanBuilder::start(name(), optimizedGraph, device, constraints, options());
  if (!started) return started.errors();
  PlanBuilder& b = *started;

  // The operators with rTasks, in topological order, with their rKernels.
  std::vector<int32_t> ops;
  std::vector<int> indexOf(b.dag().ops.size(), -1);
  for (size_t i = 0; i < b.dag().ops.size(); ++i) {
    if (b.dag().ops[i].isView) continue;
    const auto op = static_cast<int32_t>(i);
    b.choosePinnedOrFastest(op);
    indexOf[i] = static_cast<int>(ops.size());
    ops.push_back(op);
  }
  const double sms = std::max(1, device.sms);
  // What ends a stage: a kernel launch, or a barrier inside the one program.
  const bool perStage = io.programs == "stage";
  const double boundary = perStage ? device.launchOverheadUs : device.barrierLatencyUs;

  // The DP per block of consecutive operators: a block's producers outside
  // it ran in earlier blocks, so the blocks' stages concatenate.
  std::vector<PlacedStage> stages;
  std::vector<ProgramDraft> drafts;
  std::vector<std::string> lines;
  size_t states = 0, endings = 0, blocks = 0;
  double predicted = 0;
  for (size_t first = 0; first < ops.size(); first += static_cast<size_t>(io.blockOps)) {
    const size_t last = std::min(ops.size(), first + static_cast<size_t>(io.blockOps));
    ++blocks;
    IosProblem p;
    p.numOps = static_cast<int>(last - first);
    p.preds.resize(static_cast<size_t>(p.numOps));
    for (size_t k = first; k < last; ++k)
      for (int32_t q : b.dag().ops[static_cast<size_t>(ops[k])].producers)
        if (const int j = indexOf[static_cast<size_t>(q)]; j >= static_cast<int>(first) && j < static_cast<int>(last))
          p.preds[k - first].push_back(j - static_cast<int>(first));
    for (auto& pr : p.preds) std::sort(pr.begin(), pr.end());
    p.maxGroupOps = io.maxGroupOps;
    p.maxGroups = io.maxGroups;
    // The stage's operators share one vDevice (blocks sized for the largest
    // of them), so each runs at that occupancy, not its own.
    p.concurrentCost = [&](const std::vector<std::vector<int>>& groups) {
      int threads = 1, regs = 0;
      int64_t shared = 0;
      for (const auto& g : groups)
        for (int k : g) {
          const kernels::RKernel& kern = b.kernel(ops[first + static_cast<size_t>(k)]);
          threads = std::max(threads, kern.threads());
          regs = std::max(regs, kern.regsEstimate);
          shared = std::max(shared, kern.sharedBytes);
        }
      const int perSM = std::max(1, device::computeOccupancy(device, {threads, regs, shared}).blocksPerSM);
      const double veus = perSM * sms;
      double longest = 0, total = 0;
      for (const auto& g : groups) {
        double chain = 0;
        for (int k : g) {
          const kernels::RKernel& kern = b.kernel(ops[first + static_cast<size_t>(k)]);
          const double taskUs = b.taskTime(kern, perSM);
          const double tasks = static_cast<double>(kern.numRTasks);
          chain += std::ceil(tasks / veus) * taskUs;
          total += tasks * taskUs / perSM;
        }
        longest = std::max(longest, chain);
      }
      return std::max(longest, total / sms) + boundary;
    };
    const IosSolution solution = solveIos(p, [&b] { return b.cancelled(); });
    if (solution.cancelled) return PlanBuilder::cancelledError();
    states += solution.states;
    endings += solution.endings;
    predicted += solution.cost;

    for (const IosStage& s : solution.stages) {
      // The stage's groups as plan operators; a group of several runs in sequence.
      std::vector<std::vector<int32_t>> named;
      PlacedStage placed;
      for (const auto& g : s.groups) {
        std::vector<int32_t>& chain = named.emplace_back();
        for (int k : g) chain.push_back(ops[first + static_cast<size_t>(k)]);
        placed.ops.insert(placed.ops.end(), chain.begin(), chain.end());
        if (chain.size() > 1) placed.chains.push_back(chain);
      }
      std::sort(placed.ops.begin(), placed.ops.end());  // producers first
      // A new program per stage, or at a cut_before edit's stage.
      const bool cut = std::any_of(placed.ops.begin(), placed.ops.end(), [&b](int32_t op) { return b.cutBefore(op); });
      const bool join = std::any_of(placed.ops.begin(), placed.ops.end(), [&b](int32_t op) { return b.noCutBefore(op); });
      if (drafts.empty() || cut || (perStage && !join)) {
        ProgramDraft d;
        d.cutReason = drafts.empty()      ? "first stage"
                      : cut               ? "cut_before in stage " + std::to_string(stages.size()) + " (schedule edit)"
                                          : "IOS: one launch per stage";
        drafts.push_back(std::move(d));
      }
      placed.program = drafts.size() - 1;
      lines.push_back("stage " + std::to_string(stages.size()) + ": " + groupText(b, named) + " (" +
                      std::to_string(s.groups.size()) + (s.groups.size() == 1 ? " group" : " groups") + "): " +
                      formatUs(s.cost) + "; up to here " + formatUs(s.bestCost) +
                      (s.alternativeCost ? ", the best other last stage gives " + formatUs(*s.alternativeCost)
                                         : std::string(", the only choice")));
      stages.push_back(std::move(placed));
    }
  }
  b.decide("ios (" + io.variant + ", r=" + std::to_string(io.maxGroupOps) + ", s=" + std::to_string(io.maxGroups) +
           ", programs: " + io.programs + "): " + std::to_string(ops.size()) + " operators in " + std::to_string(blocks) + " block(s) of up to " +
           std::to_string(io.blockOps) + ", " + std::to_string(stages.size()) + " stages; DP " +
           std::to_string(states) + " states, " + std::to_string(endings) + " endings; stage costs sum to " +
           formatUs(predicted));
  for (std::string& line : lines) b.decide(std::move(line));

  if (auto placed = placeStages(b, stages, drafts); !placed) return placed.errors();
  return std::move(b).finish(std::move(drafts));
}

}  // namespace rammer::schedule

// Every policy on every sample model (optimized, batch 1, H100 preset): the
// plan is valid, and deleting a barrier is reported by the validator exactly
// when it breaks a dependency, judged by an oracle written apart from the
// validator.
// Small plans lose each barrier in turn; large ones a seeded sample of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "core/onnx/importer.h"
#include "core/passes/pass_manager.h"
#include "core/schedule/policy.h"
#include "core/schedule/validator.h"

namespace rammer {
namespace {

namespace fs = std::filesystem;
using namespace schedule;

std::vector<std::string> sampleNames() {
  std::vector<std::string> out;
  std::stringstream in(RAMMER_SAMPLE_NAMES);
  for (std::string s; std::getline(in, s, ',');) out.push_back(s);
  return out;
}

// Optimized sample graphs, shared by the three policies' tests.
const ir::Graph& optimizedSample(const std::string& name) {
  static std::map<std::string, ir::Graph> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  onnx_import::ImportOptions options;
  options.batch = 1;
  auto g = onnx_import::importModel(fs::path(RAMMER_SAMPLES_DIR) / (name + ".onnx"), options);
  if (!g) throw std::runtime_error(g.errorText());
  passes::PassContext ctx;
  auto records = passes::standardPipeline().run(*g, ctx);
  if (!records) throw std::runtime_error(records.errorText());
  return cache.emplace(name, std::move(g).value()).first->second;
}

// The oracle, written apart from the validator: walk every vEU's stream in
// an order that respects the happens-before edges (program order, barrier ->
// waited slot), carrying per vEU the latest order of every vEU known
// complete; snapshot that at each waited slot. A dependency holds when the
// consumer's knowledge covers the last slot its producer has on each vEU.
bool dependencyBroken(const Plan& plan, size_t program) {
  const RProgram& prog = plan.programs[program].program;
  const size_t numVEUs = static_cast<size_t>(prog.numVEUs());
  std::map<Slot, std::vector<int32_t>> snapshots;  // waited slot -> knowledge after it completes
  for (size_t v = 0; v < numVEUs; ++v)
    for (const Instr& in : prog.stream(static_cast<int>(v)))
      if (const auto* b = std::get_if<Barrier>(&in))
        for (const Slot& w : b->waits) snapshots.emplace(w, std::vector<int32_t>());
  // Per producer operator: the last order of its rTasks on each vEU.
  std::map<int32_t, std::map<int32_t, int32_t>> lastOn;
  for (size_t v = 0; v < numVEUs; ++v)
    for (size_t o = 0; o < prog.stream(static_cast<int>(v)).size(); ++o)
      if (const auto* e = std::get_if<Exec>(&prog.stream(static_cast<int>(v))[o])) {
        int32_t& last = lastOn[e->task.op][static_cast<int32_t>(v)];
        last = std::max(last, static_cast<int32_t>(o));
      }

  std::vector<std::vector<int32_t>> know(numVEUs, std::vector<int32_t>(numVEUs, -1));
  std::vector<size_t> next(numVEUs, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t v = 0; v < numVEUs; ++v) {
      const auto& stream = prog.stream(static_cast<int>(v));
      while (next[v] < stream.size()) {
        const size_t o = next[v];
        if (const auto* b = std::get_if<Barrier>(&stream[o])) {
          bool ready = true;
          for (const Slot& w : b->waits) ready = ready && w.veu >= 0 && static_cast<size_t>(w.veu) < numVEUs &&
                                                 next[static_cast<size_t>(w.veu)] > static_cast<size_t>(w.order);
          if (!ready) break;
          for (const Slot& w : b->waits) {
            const auto& seen = snapshots.at(w);
            for (size_t u = 0; u < numVEUs; ++u) know[v][u] = std::max(know[v][u], seen[u]);
          }
        } else {
          const TaskRef task = std::get<Exec>(stream[o]).task;
          for (int32_t prod : plan.ops[static_cast<size_t>(task.op)].producers) {
            auto it = lastOn.find(prod);
            if (it == lastOn.end()) continue;  // an earlier program: the launch boundary orders it
            for (const auto& [u, order] : it->second)
              if (static_cast<size_t>(u) == v ? order >= static_cast<int32_t>(o) : know[v][static_cast<size_t>(u)] < order)
                return true;
          }
        }
        know[v][v] = static_cast<int32_t>(o);  // complete: what follows on v knows it
        if (auto it = snapshots.find(Slot{static_cast<int32_t>(v), static_cast<int32_t>(o)}); it != snapshots.end())
          it->second = know[v];
        ++next[v];
        progress = true;
      }
    }
  }
  for (size_t v = 0; v < numVEUs; ++v)
    if (next[v] < prog.stream(static_cast<int>(v)).size()) return true;  // a wait that never ends
  return false;
}

// The plan with the barrier at (veu, order) of `program` deleted; waits on
// later slots of that vEU are renumbered.
Plan withoutBarrier(const Plan& plan, size_t program, Slot at) {
  Plan out = plan;
  auto streams = plan.programs[program].program.streams();
  auto& stream = streams[static_cast<size_t>(at.veu)];
  stream.erase(stream.begin() + at.order);
  for (auto& s : streams)
    for (Instr& in : s)
      if (auto* b = std::get_if<Barrier>(&in))
        for (Slot& w : b->waits)
          if (w.veu == at.veu && w.order > at.order) --w.order;
  out.programs[program].program = RProgram::fromStreams(std::move(streams));
  return out;
}

using Case = std::tuple<std::string, std::string>;  // sample, policy

class SamplePlan : public ::testing::TestWithParam<Case> {};

TEST_P(SamplePlan, IsValidAndEveryBarrierDeletionIsJudgedRight) {
  const auto& [sample, policyName] = GetParam();
  const ir::Graph& graph = optimizedSample(sample);
  auto device = device::loadDevice("h100");
  ASSERT_TRUE(device.ok());
  auto policy = makePolicy(policyName);
  ASSERT_TRUE(policy.ok());
  auto plan = (*policy)->schedule(graph, *device, {});
  ASSERT_TRUE(plan.ok()) << plan.errorText();
  const ValidationReport clean = checkPlan(*plan, graph);
  ASSERT_TRUE(clean.ok()) << clean.problems.front().message;
  for (size_t p = 0; p < plan->programs.size(); ++p) ASSERT_FALSE(dependencyBroken(*plan, p)) << "program " << p;

  // Every live non-view operator is planned, with all of its rTasks placed once.
  size_t placed = 0;
  for (const auto& info : plan->programs) placed += info.program.numTasks();
  EXPECT_EQ(placed, plan->numRTasks());

  std::vector<std::pair<size_t, Slot>> barriers;
  for (size_t p = 0; p < plan->programs.size(); ++p) {
    const RProgram& prog = plan->programs[p].program;
    for (int v = 0; v < prog.numVEUs(); ++v)
      for (size_t o = 0; o < prog.stream(v).size(); ++o)
        if (std::holds_alternative<Barrier>(prog.stream(v)[o])) barriers.push_back({p, Slot{v, static_cast<int32_t>(o)}});
  }
  if (policyName == "sequential") {
    // One operator per program: the launch boundary orders everything.
    EXPECT_TRUE(barriers.empty());
    EXPECT_EQ(plan->programs.size(), static_cast<size_t>(std::count_if(
                                         plan->ops.begin(), plan->ops.end(), [](const PlannedOp& op) { return !op.isView; })));
    return;
  }
  ASSERT_FALSE(barriers.empty()) << "a one-program plan of a multi-operator model needs barriers";

  // Every barrier of a small plan; a fixed sample of a large one (each
  // deletion costs a full validation: about a second on ResNeXt's 19k rTasks).
  constexpr size_t kMaxMutations = 40;
  // RAMMER_ALL_BARRIERS=1 deletes every barrier in turn (hours on the big
  // plans: each deletion is a full validation).
  const bool all = std::getenv("RAMMER_ALL_BARRIERS") != nullptr;
  const size_t budget = all ? barriers.size() : plan->numRTasks() > 5000 ? 4 : kMaxMutations;
  std::mt19937 rng(1234);
  if (barriers.size() > budget) {
    std::shuffle(barriers.begin(), barriers.end(), rng);
    barriers.resize(budget);
  }
  int broken = 0;
  for (const auto& [p, slot] : barriers) {
    const Plan mutated = withoutBarrier(*plan, p, slot);
    const bool expectBroken = dependencyBroken(mutated, p);
    broken += expectBroken;
    const ValidationReport r = checkPlan(mutated, graph, 5);
    EXPECT_EQ(!r.ok(), expectBroken) << "barrier at program " << p << " vEU " << slot.veu << " order " << slot.order
                                     << (r.ok() ? std::string() : "\n" + r.problems.front().message);
    if (!r.ok()) {
      EXPECT_EQ(r.problems.front().kind, ProblemKind::Dependency) << r.problems.front().message;
      // The report names the consumer and its producer.
      EXPECT_EQ(r.problems.front().tasks.size(), 2u);
    }
  }
  // Policies emit a barrier only where program order does not already
  // cover a dependency, so most deletions must break something.
  EXPECT_GT(broken, 0);
}

std::vector<Case> allCases() {
  std::vector<Case> out;
  for (const auto& s : sampleNames())
    for (const auto& p : policyNames()) out.push_back({s, p});
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllSamples, SamplePlan, ::testing::ValuesIn(allCases()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param);
});

}  // namespace
}  // namespace rammer

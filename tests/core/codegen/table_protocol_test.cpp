// The barrier protocol, run on the CPU from the generated table words alone:
// each vEU walks its entries as the persistent kernel does (wait lists
// compared with epoch<<32 | order+1, publishing epoch<<32 | publish), vEUs
// interleaved at random or with waiting vEUs first. Every rTask must start
// after every rTask of its producer operators in the same program, each
// rTask runs exactly once, and nothing deadlocks -- in a first run and in a
// second run over the same, never reset, step counters (new epoch). The
// same second run with the old epoch must break, showing the check bites.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/codegen/code_generator.h"
#include "tests/core/codegen/codegen_fixtures.h"

namespace rammer::codegen {
namespace {

using schedule::RTask;

// Word offset of each plan op's argument list, recomputed from the graph
// (header of 4 words, then input+output slots per non-view op).
std::map<int32_t, int32_t> opByArgs(const schedule::Plan& plan, const ir::Graph& g) {
  std::map<int32_t, int32_t> out;
  int32_t at = 4;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (plan.ops[i].isView) continue;
    out[at] = static_cast<int32_t>(i);
    const ir::Node& n = g.node(plan.ops[i].node);
    at += static_cast<int32_t>(n.inputs.size() + n.outputs.size());
  }
  return out;
}

enum class Order { Random, WaitersFirst };

// Runs launch `li`; returns "" or the first problem.
std::string simulate(const GeneratedProgram& gp, size_t li, const schedule::Plan& plan, const ir::Graph& g,
                     std::vector<uint64_t>& steps, uint64_t epoch, Order order, uint32_t seed) {
  const KernelLaunch& l = gp.launches[li];
  const std::vector<int32_t>& w = gp.tableWords;
  const auto ops = opByArgs(plan, g);
  const auto& prog = plan.programs[static_cast<size_t>(l.program)].program;
  std::set<int32_t> inProgram;
  std::map<int32_t, int64_t> remaining;  // rTasks of each op still to run
  for (const auto& s : prog.streams())
    for (const auto& ins : s)
      if (const auto* e = std::get_if<schedule::Exec>(&ins)) {
        inProgram.insert(e->task.op);
        ++remaining[e->task.op];
      }
  std::set<RTask> done;
  const uint64_t tag = epoch << 32;
  struct Veu {
    int i = 0, end = 0, k = 0;
  };
  std::vector<Veu> veus(static_cast<size_t>(l.gridBlocks));
  for (int v = 0; v < l.gridBlocks; ++v)
    veus[static_cast<size_t>(v)] = {w[static_cast<size_t>(l.table.streams + 2 * v)], w[static_cast<size_t>(l.table.streams + 2 * v + 1)], 0};
  auto entry = [&](int i, int f) { return w[static_cast<size_t>(l.table.code + 6 * i + f)]; };
  auto publish = [&](int v, int i) {
    if (const int p = entry(i, 5)) {
      uint64_t& s = steps[static_cast<size_t>(l.stepOffset + v)];
      if ((tag | static_cast<uint64_t>(p)) < s) return std::string("vEU ") + std::to_string(v) + " publishes a smaller step";
      s = tag | static_cast<uint64_t>(p);
    }
    return std::string();
  };
  // One step of vEU v: "" and progress, "" and no progress (blocked), or a problem.
  auto step = [&](int v, bool& progressed) -> std::string {
    Veu& s = veus[static_cast<size_t>(v)];
    progressed = false;
    if (s.i >= s.end) return "";
    const int fn = entry(s.i, 0), args = entry(s.i, 1), count = entry(s.i, 3);
    if (fn < 0) {
      for (int j = 0; j < count; ++j) {
        const auto pair = static_cast<size_t>(l.table.waits + args + 2 * j);
        const uint64_t want = tag | static_cast<uint64_t>(w[pair + 1] + 1);
        if (steps[static_cast<size_t>(l.stepOffset + w[pair])] < want) return "";
      }
      progressed = true;
      const std::string p = publish(v, s.i);
      ++s.i;
      return p;
    }
    const auto op = ops.find(args);
    if (op == ops.end()) return "entry names no op's argument list";
    const RTask t{op->second, entry(s.i, 2) + s.k * entry(s.i, 4)};
    for (int32_t p : plan.ops[static_cast<size_t>(t.op)].producers)
      if (inProgram.count(p) && remaining[p] > 0)
        return "vEU " + std::to_string(v) + " starts " + plan.ops[static_cast<size_t>(t.op)].name + "[" +
               std::to_string(t.rtask) + "] before producer " + plan.ops[static_cast<size_t>(p)].name + " finished";
    if (!done.insert(t).second) return "rTask run twice";
    --remaining[t.op];
    progressed = true;
    if (++s.k < count) return "";
    s.k = 0;
    const std::string p = publish(v, s.i);
    ++s.i;
    return p;
  };

  std::mt19937 rng(seed);
  std::vector<int> order_(static_cast<size_t>(l.gridBlocks));
  for (int v = 0; v < l.gridBlocks; ++v) order_[static_cast<size_t>(v)] = v;
  for (;;) {
    std::shuffle(order_.begin(), order_.end(), rng);
    if (order == Order::WaitersFirst)
      std::stable_partition(order_.begin(), order_.end(), [&](int v) {
        const Veu& s = veus[static_cast<size_t>(v)];
        return s.i < s.end && entry(s.i, 0) < 0;
      });
    bool any = false, unfinished = false;
    for (int v : order_) {
      bool progressed = false;
      if (std::string problem = step(v, progressed); !problem.empty()) return problem;
      any = any || progressed;
      unfinished = unfinished || veus[static_cast<size_t>(v)].i < veus[static_cast<size_t>(v)].end;
    }
    if (!unfinished) break;
    if (!any) return "deadlock: every unfinished vEU waits";
  }
  for (const auto& [op, n] : remaining)
    if (n != 0) return plan.ops[static_cast<size_t>(op)].name + " has rTasks that never ran";
  if (done.size() != prog.numTasks()) return "ran " + std::to_string(done.size()) + " rTasks of " + std::to_string(prog.numTasks());
  return "";
}

struct Case {
  std::string sample, policy;
};
// What gtest prints for GetParam() (otherwise the struct's bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.sample << " " << c.policy; }

class TableProtocol : public ::testing::TestWithParam<Case> {};

TEST_P(TableProtocol, DependenciesHoldInTwoRunsOverTheSameSteps) {
  const Case c = GetParam();
  if (!std::filesystem::exists(testing::samplePath(c.sample))) GTEST_SKIP() << c.sample << " not built";
  const ir::Graph g = testing::optimizedSampleGraph(c.sample);
  const schedule::Plan plan = testing::planSample(g, c.policy);
  auto gp = generateProgram(plan, g);
  ASSERT_TRUE(gp) << gp.errorText();
  std::vector<uint64_t> steps(static_cast<size_t>(gp->numSteps), 0);
  size_t barriers = 0;
  for (const auto& p : plan.programs) barriers += p.program.numBarriers();
  ASSERT_GT(barriers, 0u) << "the case should exercise barriers";
  for (uint64_t epoch = 1; epoch <= 2; ++epoch)
    for (size_t li = 0; li < gp->launches.size(); ++li) {
      ASSERT_TRUE(gp->launches[li].persistent);
      const Order order = epoch == 1 ? Order::Random : Order::WaitersFirst;
      EXPECT_EQ(simulate(*gp, li, plan, g, steps, epoch, order, static_cast<uint32_t>(epoch * 7 + li)), "")
          << "launch " << li << ", epoch " << epoch;
    }
  // Control: a second run that reuses epoch 2 sees the finished steps of
  // the run before and lets some rTask start too early.
  bool broke = false;
  for (size_t li = 0; li < gp->launches.size(); ++li)
    broke = broke || !simulate(*gp, li, plan, g, steps, 2, Order::WaitersFirst, 99).empty();
  EXPECT_TRUE(broke) << "stale steps went unnoticed: the simulation does not test the epochs";
}

INSTANTIATE_TEST_SUITE_P(Samples, TableProtocol,
                         ::testing::Values(Case{"sample_cnn", "wavefront"}, Case{"inception_block", "wavefront"},
                                           Case{"nasbench_cells", "wavefront"}, Case{"nasbench_cells", "greedy"},
                                           Case{"lstm_tc", "wavefront"}),
                         [](const auto& info) { return info.param.sample + "_" + info.param.policy; });

}  // namespace
}  // namespace rammer::codegen

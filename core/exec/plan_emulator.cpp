#include "core/exec/plan_emulator.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/exec/buffer_arena.h"
#include "core/exec/emulator_preflight.h"
#include "core/exec/memory_budget.h"
#include "core/exec/program_runner.h"

namespace rammer::exec {

ir::Result<EmulationResult> emulatePlan(const schedule::Plan& plan, const ir::Graph& graph,
                                        const std::vector<ir::Tensor>& inputs, const EmulatorOptions& options) {
  if (options.threads < 0)
    return ir::makeError("the emulator needs at least one thread, " + std::to_string(options.threads) + " were asked for");
  if (auto errs = preflightPlan(plan); !errs.empty()) return errs;
  if (auto over = checkMemoryBudget(estimatePlanRun(plan, graph, false), options.maxMemoryBytes, "the emulator"))
    return *over;
  auto arena = BufferArena::build(plan, graph, inputs);
  if (!arena) return arena.errors();

  // More threads than the widest program has vEUs would only idle.
  int widest = 1;
  for (const auto& p : plan.programs) widest = std::max(widest, p.program.numVEUs());
  const int wanted = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  const int threads = std::clamp(wanted, 1, widest);

  ProgramRunner runner(plan, schedule::graphOf(plan, graph), inputs, *arena, options, threads);
  const auto start = std::chrono::steady_clock::now();
  if (auto error = runner.run()) return *error;

  EmulationResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.threads = threads;
  auto outputs = arena->outputs();
  if (!outputs) return outputs.errors();
  result.outputs = std::move(outputs).value();
  if (options.trace) result.trace = runner.trace();
  return result;
}

}  // namespace rammer::exec

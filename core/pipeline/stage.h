#pragma once
// The stages of DESIGN.md's pipeline, in the order data flows through them:
//   .onnx -> Import -> Optimize -> Schedule -> Validate -> Simulate -> Run
//                                                             `-> Generate -> Compile
//                                                                          `-> Export
// After Simulate the pipeline branches: Run executes the plan on a backend
// (which builds for itself, through the same compile, the code that
// backend needs), Generate writes the plan's code for one target, Compile
// builds that code (NVRTC for CUDA, the system compiler for the host) and
// reads back what the compiler gave each kernel, and Export writes a
// project from the generated code. A request to Export therefore never runs
// or compiles the plan, and one to Run never writes a project.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ir/diagnostic.h"

namespace rammer::pipeline {

enum class Stage { Import, Optimize, Schedule, Validate, Simulate, Run, Generate, Compile, Export };

inline constexpr Stage kFirstStage = Stage::Import;
inline constexpr Stage kLastStage = Stage::Export;

// The stage whose value `stage` reads (Simulate for Run and Generate,
// Generate for Compile and Export);
// nullopt for Import.
std::optional<Stage> stageBefore(Stage stage);
// Whether `stage` reads, directly or through the stages between, the value
// of `on` (or is `on`).
bool stageDependsOn(Stage stage, Stage on);
// The stages a request `from`..`to` runs, in order: `to` and the stages it
// reads from, those before `from` excluded (their values are given).
std::vector<Stage> stagesBetween(Stage from, Stage to);

// "import", "optimize", ...: the words logs and diagnostics use.
std::string_view stageName(Stage stage);
// The stage a name names (what ir::Diagnostic::stage holds); nullopt for
// any other word.
std::optional<Stage> stageNamed(std::string_view name);
// "Importing", "Optimizing", ...: progress lines.
std::string_view stageVerb(Stage stage);
// `d` tagged with `stage` (ir::Diagnostic::stage), as every stage tags its own.
ir::Diagnostic inStage(Stage stage, ir::Diagnostic d);

// What a long stage (Run, Compile, Export) sees of the pipeline that runs it.
struct StageContext {
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string& what, double withinStage)> progress;  // 0..1 of the stage
  std::function<void(ir::Diagnostic)> diagnose;  // warnings and notes
  std::function<void(std::string)> log;          // one line per thing done

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

}  // namespace rammer::pipeline

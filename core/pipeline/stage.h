#pragma once
// The stages of DESIGN.md's pipeline, in the order data flows through them:
//   .onnx -> Import -> Optimize -> Schedule -> Validate -> Simulate -> Run
// Export is no stage of its own run: it names what an export reports.
#include <optional>
#include <string_view>

namespace rammer::pipeline {

enum class Stage { Import, Optimize, Schedule, Validate, Simulate, Run, Export };

inline constexpr Stage kFirstStage = Stage::Import;
inline constexpr Stage kLastStage = Stage::Run;

// "import", "optimize", ...: the words logs and diagnostics use.
std::string_view stageName(Stage stage);
// The stage a name names (what ir::Diagnostic::stage holds); nullopt for
// any other word.
std::optional<Stage> stageNamed(std::string_view name);
// "Importing", "Optimizing", ...: progress lines.
std::string_view stageVerb(Stage stage);

}  // namespace rammer::pipeline

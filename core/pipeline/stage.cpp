#include "core/pipeline/stage.h"

#include <algorithm>

namespace rammer::pipeline {

std::optional<Stage> stageBefore(Stage stage) {
  switch (stage) {
    case Stage::Import: return std::nullopt;
    case Stage::Run:
    case Stage::Generate: return Stage::Simulate;
    case Stage::Export: return Stage::Generate;
    default: return static_cast<Stage>(static_cast<int>(stage) - 1);
  }
}

bool stageDependsOn(Stage stage, Stage on) {
  for (std::optional<Stage> s = stage; s; s = stageBefore(*s))
    if (*s == on) return true;
  return false;
}

std::vector<Stage> stagesBetween(Stage from, Stage to) {
  std::vector<Stage> out;
  for (std::optional<Stage> s = to; s && *s >= from; s = stageBefore(*s)) out.push_back(*s);
  std::reverse(out.begin(), out.end());
  return out;
}

std::string_view stageName(Stage stage) {
  switch (stage) {
    case Stage::Import: return "import";
    case Stage::Optimize: return "optimize";
    case Stage::Schedule: return "schedule";
    case Stage::Validate: return "validate";
    case Stage::Simulate: return "simulate";
    case Stage::Run: return "run";
    case Stage::Generate: return "generate";
    case Stage::Compile: return "compile";
    case Stage::Export: return "export";
  }
  return "?";
}

std::optional<Stage> stageNamed(std::string_view name) {
  for (int s = static_cast<int>(kFirstStage); s <= static_cast<int>(kLastStage); ++s)
    if (stageName(static_cast<Stage>(s)) == name) return static_cast<Stage>(s);
  return std::nullopt;
}

std::string_view stageVerb(Stage stage) {
  switch (stage) {
    case Stage::Import: return "Importing";
    case Stage::Optimize: return "Optimizing";
    case Stage::Schedule: return "Scheduling";
    case Stage::Validate: return "Validating";
    case Stage::Simulate: return "Simulating";
    case Stage::Run: return "Running";
    case Stage::Generate: return "Generating code";
    case Stage::Compile: return "Compiling";
    case Stage::Export: return "Exporting";
  }
  return "?";
}

ir::Diagnostic inStage(Stage stage, ir::Diagnostic d) {
  d.stage = std::string(stageName(stage));
  return d;
}

}  // namespace rammer::pipeline

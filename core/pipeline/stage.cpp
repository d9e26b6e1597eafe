#include "core/pipeline/stage.h"

namespace rammer::pipeline {

std::string_view stageName(Stage stage) {
  switch (stage) {
    case Stage::Import: return "import";
    case Stage::Optimize: return "optimize";
    case Stage::Schedule: return "schedule";
    case Stage::Validate: return "validate";
    case Stage::Simulate: return "simulate";
    case Stage::Run: return "run";
    case Stage::Export: return "export";
  }
  return "?";
}

std::optional<Stage> stageNamed(std::string_view name) {
  for (Stage s : {Stage::Import, Stage::Optimize, Stage::Schedule, Stage::Validate, Stage::Simulate, Stage::Run,
                  Stage::Export})
    if (stageName(s) == name) return s;
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
    case Stage::Export: return "Exporting";
  }
  return "?";
}

}  // namespace rammer::pipeline

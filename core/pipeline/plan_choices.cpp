#include "core/pipeline/plan_choices.h"

namespace rammer::pipeline {

Options optionsFor(const std::string& modelPath, const PlanChoices& c) {
  Options o;
  o.modelPath = modelPath;
  o.import.batch = c.batch > 0 ? c.batch : 1;
  o.policy = c.policy;
  o.device = c.device;
  o.scheduleEditsFile = c.scheduleFile;
  o.constraints = c.constraints;
  o.ios = c.ios;
  o.graphturbo = c.graphturbo;
  o.attention = c.attention;
  o.epilogues = c.epilogues;
  o.costModel = c.costModel;
  o.fitRegisters = c.fitRegisters;
  o.launchFallback = c.launchFallback;
  o.residentCells = c.residentCells;
  return o;
}

}  // namespace rammer::pipeline

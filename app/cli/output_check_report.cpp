#include "app/cli/output_check_report.h"

#include <fmt/format.h>

namespace rammer::cli {

Json outputCheckJson(const pipeline::OutputCheck& check) {
  Json outputs = Json::array();
  for (const pipeline::OutputComparison& c : check.outputs)
    outputs.push_back(Json{{"name", c.name},
                           {"compared", c.compared},
                           {"elements", c.elements},
                           {"mismatched", c.mismatched},
                           {"max_abs_diff", c.maxAbsDiff},
                           {"max_rel_error", c.maxRelError}});
  return Json{{"pass", check.match},
              {"rule", pipeline::outputRuleText()},
              {"max_abs_diff", check.maxAbsDiff},
              {"max_rel_error", check.maxRelError},
              {"outputs", std::move(outputs)}};
}

std::vector<std::string> outputCheckLines(const pipeline::OutputCheck& check) {
  std::vector<std::string> lines{fmt::format("check    {}: max |diff| {:.3g} ({:.2e} of the largest value) vs the "
                                             "reference executor on the imported graph",
                                             check.match ? "PASS" : "FAIL", check.maxAbsDiff, check.maxRelError)};
  for (const pipeline::OutputComparison& c : check.outputs)
    if (!c.sameShape || c.mismatched) lines.push_back("  " + pipeline::mismatchMessage(c));
  return lines;
}

}  // namespace rammer::cli

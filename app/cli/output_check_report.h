#pragma once
// How `rammer run` reports the Run stage's output check, the same way for
// every backend that runs a plan (emulator, host, cuda): a JSON object and
// text lines (core/pipeline/output_check.h holds the rule).
#include <string>
#include <vector>

#include "app/cli/json_output.h"
#include "core/pipeline/output_check.h"

namespace rammer::cli {

// {"pass", "rule", "max_abs_diff", "max_rel_error", "outputs": [{"name",
// "elements", "mismatched", "max_abs_diff", "max_rel_error"}]}.
Json outputCheckJson(const pipeline::OutputCheck& check);

// "check    PASS: ..." and, on a failure, one line per failing output.
std::vector<std::string> outputCheckLines(const pipeline::OutputCheck& check);

}  // namespace rammer::cli

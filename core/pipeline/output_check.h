#pragma once
// One rule for every backend's outputs (issue #29 item 2): the Run stage
// compares what the emulator, the generated code on the CPU or the GPU
// produced with the reference executor's run of the imported graph, element
// by element, with a tolerance relative to each element and to the output's
// scale:
//   |got - want| <= kAtol * max(1, max |want|) + kRtol * |want|
// The scale term keeps an element near zero in an output of large values
// (a sum whose terms cancel) from failing on float32 rounding of a
// different summation order; the relative term bounds every other element.
// NaN matches NaN and an infinity the same infinity. Integer and bool
// outputs (token ids, ArgMax, masks) must match exactly; strings are not
// compared.
#include <cstdint>
#include <string>
#include <vector>

#include "core/ir/graph.h"
#include "core/ir/tensor.h"

namespace rammer::pipeline {

// One graph output against the reference.
struct OutputComparison {
  std::string name;
  bool sameShape = true;  // element count and dtype; false: nothing else was compared
  bool compared = false;  // the same shape, and not strings
  int64_t elements = 0, mismatched = 0;
  double maxAbsDiff = 0;
  double maxRelError = 0;  // max |diff| over the output's max |want|
};

struct OutputCheck {
  static constexpr double kRtol = 1e-4, kAtol = 1e-5;
  bool match = true;
  double maxAbsDiff = 0, maxRelError = 0;  // worst over the outputs
  std::vector<OutputComparison> outputs;   // per graph output of `reference`
};

// `got` and `want` per output of `reference` (the imported graph).
OutputCheck compareOutputs(const ir::Graph& reference, const std::vector<ir::Tensor>& got,
                           const std::vector<ir::Tensor>& want);

// The rule in words, for reports: "|diff| <= 1e-05 x max(1, max|ref|) + 1e-04 x |ref|".
std::string outputRuleText();

// Why an output fails the rule, the same words for every backend:
// "output 'y' differs from the reference in 3 of 64 elements (max |diff| 0.5)".
std::string mismatchMessage(const OutputComparison& c);

}  // namespace rammer::pipeline

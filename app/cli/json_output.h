#pragma once
// Machine-readable output (--json). Keys keep the documented order.
#include <nlohmann/json.hpp>
#include <string>

#include "core/ops/model_summary.h"

namespace rammer::cli {

using Json = nlohmann::ordered_json;

// Dims as numbers; an unknown dim is its symbolic name, or null if it has none.
Json shapeToJson(const ir::TensorType& type, const std::vector<std::string>& dimParams = {});
// {"name", "dtype", "shape"}.
Json valueToJson(const ops::ValueSummary& v);
// The `rammer info --json` object.
Json summaryToJson(const ops::ModelSummary& s, const std::string& modelPath);

// Shape text with symbolic names where a dim is unknown: "[batch, 3, 224, 224]".
std::string shapeText(const ir::TensorType& type, const std::vector<std::string>& dimParams = {});

}  // namespace rammer::cli
